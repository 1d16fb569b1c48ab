// SPDX-License-Identifier: MIT
// Checkpoint directories: model.pt (torch archive of every parameter and
// buffer of MorpheusWithHeads, or of Morpheus alone for an inference export), config.json
// ({"model": ModelConfig, ...}), char_vocab.json (when given), meta.json (format_version, kind,
// parameter counts, creation time). Writes go to a temporary sibling directory renamed into
// place, so a reader never sees a half-written checkpoint. Round trips are bit-exact. Tensors
// are written from the CPU and read onto the device the caller asks for, so a checkpoint does not
// depend on the device that wrote it.
#pragma once

#include <string>

#include "core/status.h"
#include "model/losses.h"
#include "model/morpheus.h"

namespace morpheus::model {

constexpr int kCheckpointFormatVersion = 1;

struct CheckpointExtras {
  std::string config_json;      // full resolved config text; empty -> {"model": <config>}
  std::string char_vocab_json;  // char_vocab.json contents; empty -> no char_vocab.json
};

// Saves model + heads (kind "training") into `dir`, replacing an existing checkpoint there.
Status save_checkpoint(const std::string& dir, MorpheusWithHeads& module,
                       const CheckpointExtras& extras = {});
// Saves the inference model only (kind "inference").
Status save_inference_checkpoint(const std::string& dir, Morpheus& model,
                                 const CheckpointExtras& extras = {});

// Loads a "training" checkpoint onto `device`: rebuilds the modules from config.json and reads
// every tensor. NOT_FOUND / DATA_LOSS / INVALID_ARGUMENT naming the file on any problem.
StatusOr<MorpheusWithHeads> load_checkpoint(const std::string& dir,
                                            const torch::Device& device = torch::kCPU);
// Loads the inference model from either kind of checkpoint onto `device`.
StatusOr<Morpheus> load_inference_checkpoint(const std::string& dir,
                                             const torch::Device& device = torch::kCPU);

}  // namespace morpheus::model
