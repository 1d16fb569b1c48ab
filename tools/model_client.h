// SPDX-License-Identifier: MIT
// The Morpheus model in a co-process: the torch-free `morpheus` runs `morpheus-torch
// model-server --model DIR` when a letter run misses the segmentation table, and talks to it over
// a socket pair. Protocol (one request at a time):
//   server -> "READY\n" after loading and checking the model, or "ERROR\t<code>\t<msg>\t<hint>\n"
//   client -> "<n>\n" then n letter runs, one per line
//   server -> n lines, the pieces of each run joined by ' '
// The client closes the socket to end the server.
#pragma once

#include <string>

#include "tools/tokenizer_dir.h"

namespace morpheus::tools {

// A factory starting `binary` (the LibTorch morpheus) as the model server of the directory.
RunSegmenterFactory model_server_factory(const std::string& binary, size_t cache);

// The model server loop on stdin/stdout. `load` creates the model segmenter (its error is sent
// as the ERROR line and returned).
Status serve_model(const std::function<StatusOr<RunSegmenter*>()>& load);

}  // namespace morpheus::tools
