// SPDX-License-Identifier: MIT
// The model server: the Morpheus model of a tokenizer directory segmenting, on stdin/stdout, the
// letter runs the torch-free tokenizer sends it (protocol and client: tokenizer/model_client.h).
// `morpheus-model-server` (tools/model_server_main.cc) runs it; `morpheus encode|segment` and
// morpheus.Tokenizer start that binary as their co-process on the first run their table lacks.
#pragma once

#include <string>

#include "core/status.h"
#include "infer/neural_segmenter.h"

namespace morpheus::infer {

// Loads the model of the tokenizer directory `dir` (checksums; the client runs the model
// self-test and the root snap) with `options`, greets the client (READY, or ERROR with the load
// error, which is also returned) and answers requests with the model's pieces until stdin ends.
Status run_model_server(const std::string& dir, const NeuralSegmenterOptions& options);

}  // namespace morpheus::infer
