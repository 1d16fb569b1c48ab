// SPDX-License-Identifier: MIT
// The engine model of a Morpheus tokenizer directory: model.weights and char_vocab.json
// (checksummed in morpheus.json), the segmentation threshold of the export. It is the
// tokenizer's stage-3 model in every runtime ("morpheus-engine" of the factory in
// tokenizer/segmenter.h): `morpheus encode|segment|embed`, the Python package, and
// `morpheus-torch` on the CPU. Torch-free.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "engine/segmenter.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/segmenter.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::engine {

// Loads the engine model of the tokenizer directory `dir` (`config`: its morpheus.json): checks
// the checksums of model.weights and char_vocab.json; options.threshold is set to the
// directory's. FAILED_PRECONDITION for a directory exported before the engine (no
// model.weights), with the command that adds it.
StatusOr<std::unique_ptr<EngineSegmenter>> load_directory_model(const std::string& dir,
                                                                const nlohmann::json& config,
                                                                EngineSegmenterOptions options);

// The spec of the "morpheus-engine" segmenter, registered by this call: load_directory_model on
// the directory at spec.path with `threads` threads per call ({"threads": n}).
tokenizer::SegmenterSpec engine_model_spec(size_t threads = 1);

// The engine model of `tok` (loaded with engine_model_spec; created and self-tested on the first
// call); INTERNAL when tok's model is another segmenter.
StatusOr<const EngineSegmenter*> engine_model(const tokenizer::Tokenizer& tok);

}  // namespace morpheus::engine
