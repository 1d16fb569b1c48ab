// SPDX-License-Identifier: MIT
// The model of a Morpheus tokenizer directory, on LibTorch: loaded from model/ and
// char_vocab.json (checksummed), made the tokenizer's stage-3 model in process ("morpheus-model"
// of the factory in tokenizer/segmenter.h), and reached from a loaded tokenizer for what needs
// the network itself (embeddings, gap probabilities). The model self-test and the root snap are
// the tokenizer's (tokenizer/tokenizer.h).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "infer/neural_segmenter.h"
#include "tokenizer/segmenter.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::infer {

// Loads the model of the tokenizer directory `dir` (its morpheus.json is `config`): checks the
// checksums of model/ and char_vocab.json, sets the directory's threshold; FAILED_PRECONDITION
// when options.int8 cannot be honoured.
StatusOr<std::unique_ptr<NeuralSegmenter>> load_model_segmenter(const std::string& dir,
                                                                const nlohmann::json& config,
                                                                NeuralSegmenterOptions options);

// The spec of the "morpheus-model" segmenter (tokenizer/segmenter.h), registered by this call:
// load_model_segmenter on the directory at spec.path, in this process. It carries `options`'
// cache_capacity, max_batch_chars and device as {"cache", "max_batch_chars", "device"}; the
// threshold comes from the directory.
tokenizer::SegmenterSpec in_process_model(const NeuralSegmenterOptions& options);

// The tokenizer at `dir` (self-tested) with its model in process (in_process_model(options)).
StatusOr<std::unique_ptr<tokenizer::Tokenizer>> load_with_model(
    const std::string& dir, const NeuralSegmenterOptions& options = {});

// The in-process model of `tok` (created and self-tested on the first call; later calls return
// it or the same error); INTERNAL when tok's model is not "morpheus-model".
StatusOr<const NeuralSegmenter*> neural_model(const tokenizer::Tokenizer& tok);

}  // namespace morpheus::infer
