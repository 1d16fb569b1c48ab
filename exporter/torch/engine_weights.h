// SPDX-License-Identifier: MIT
// The engine's weight file (engine/weight_file.h) from a LibTorch model: what `morpheus export`
// writes beside the checkpoint so that the torch-free engine (engine/) runs the model.
#pragma once

#include <string>

#include "core/status.h"
#include "engine/config.h"
#include "model/morpheus.h"

namespace morpheus::exporter {

// Writes `model`'s architecture (its ModelConfig, engine/config.h) with every parameter and its
// RoPE tables as float32 to `path`, atomically. INVALID_ARGUMENT when the model does not have the
// tensors its configuration implies, or its LayerNorms another epsilon than the engine's.
Status write_engine_weights(const model::Morpheus& model, const std::string& path);

}  // namespace morpheus::exporter
