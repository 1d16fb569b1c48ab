// SPDX-License-Identifier: MIT
// The Morpheus model in a co-process: the torch-free tokenizer (`morpheus encode|segment`,
// morpheus._tokenizer) runs `morpheus-model-server --model DIR` (infer/model_server.h) when a
// letter run misses the segment table, and talks to it over a socket pair. Protocol (one
// request at a time):
//   server -> "READY\n" after loading and checking the model, or "ERROR\t<code>\t<msg>\t<hint>\n"
//   client -> "<n>\n" then n letter runs, one per line
//   server -> n lines, the pieces of each run joined by ' '
// The client closes the socket to end the server.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "core/status.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

// What a tokenizer asks of the model that segments the letter runs its table lacks.
struct ModelRequest {
  size_t cache = size_t{1} << 20;  // runs kept in the model's LRU cache
  int threads = 0;                 // LibTorch intra-op threads; 0: LibTorch's default
  std::string device = "cpu";      // where the model runs: auto, cpu, cuda or cuda:N
};

// The spec of the "morpheus-server" segmenter (tokenizer/segmenter.h), registered by this call:
// it starts `binary` (morpheus-model-server) as the model server of the directory at spec.path:
// `binary --model DIR --cache C [--threads N] [--device D]`. Options {"binary": path, "cache":
// runs, "threads": n, "device": name}.
SegmenterSpec model_server_factory(const std::string& binary, const ModelRequest& request);

// The model server loop on stdin/stdout. `load` creates the model segmenter (its error is sent
// as the ERROR line and returned).
Status serve_model(const std::function<StatusOr<Segmenter*>()>& load);

}  // namespace morpheus::tokenizer
