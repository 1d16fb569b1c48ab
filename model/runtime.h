// SPDX-License-Identifier: MIT
// Runtime set-up for LibTorch: device selection (--device auto|cpu|cuda), thread count, and a
// check that LibTorch's BLAS is an optimized one (OpenBLAS, BLIS, MKL), not Debian's reference
// BLAS, which makes matrix multiplication ~10x slower.
#pragma once

#include <torch/types.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace morpheus::model {

// "auto": CUDA when available, else CPU; "cpu"; "cuda" or "cuda:N" (error when unavailable).
StatusOr<torch::Device> resolve_device(const std::string& name);

// Enables TF32 matmul/cuDNN on CUDA devices (training); no-op on CPU.
void configure_device(const torch::Device& device);
// Full float on CUDA devices (inference: matmuls and cuDNN's convolutions without TF32, so a GPU
// computes what the CPU does up to float rounding); no-op on CPU. Process-wide.
void configure_inference_device(const torch::Device& device);

// The CUDA caching allocator's figures for `device` since the process started, as JSON:
// {"cuda_peak_allocated_mb", "cuda_peak_reserved_mb", "cuda_alloc_retries"} (the peak of
// tensor memory, of memory held from the driver, and the allocations retried after freeing the
// cache: a sign of fragmentation under memory pressure); {} on the CPU or in a build without
// LibTorch's CUDA headers.
nlohmann::json cuda_memory_stats(const torch::Device& device);

struct BlasInfo {
  std::string library;  // resolved path of the BLAS library loaded in this process, or ""
  bool optimized = false;
};
// Inspects the shared objects loaded in this process.
BlasInfo detect_blas();
// Logs a warning with a fix when the loaded BLAS is the reference implementation.
void warn_if_slow_blas();

}  // namespace morpheus::model
