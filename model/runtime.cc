// SPDX-License-Identifier: MIT
#include "model/runtime.h"

#include <ATen/Context.h>
#include <link.h>
#include <torch/cuda.h>

#include <climits>
#include <cstdlib>

#if defined(MORPHEUS_HAS_CUDA_ALLOCATOR)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "core/logging.h"

namespace morpheus::model {

StatusOr<torch::Device> resolve_device(const std::string& name) {
  if (name == "auto") {
    return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0)
                                       : torch::Device(torch::kCPU);
  }
  if (name == "cpu") return torch::Device(torch::kCPU);
  if (name.rfind("cuda", 0) == 0) {
    if (!torch::cuda::is_available()) {
      return failed_precondition("--device " + name +
                                     ": CUDA is not available in this build or "
                                     "on this machine",
                                 "use --device cpu, or build against a CUDA LibTorch "
                                 "(-DCMAKE_PREFIX_PATH=/path/to/libtorch, see README)");
    }
    int index = 0;
    if (name.size() > 4) {
      if (name[4] != ':' || name.size() == 5) {
        return invalid_argument("--device " + name + ": expected cuda or cuda:N");
      }
      char* end = nullptr;
      const long v = std::strtol(name.c_str() + 5, &end, 10);
      if (*end != '\0' || v < 0 || v >= static_cast<long>(torch::cuda::device_count())) {
        return invalid_argument(
            "--device " + name + ": no such CUDA device",
            "this machine has " + std::to_string(torch::cuda::device_count()) + " CUDA device(s)");
      }
      index = static_cast<int>(v);
    }
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  return invalid_argument("--device " + name + ": unknown device", "use auto, cpu or cuda[:N]");
}

void configure_device(const torch::Device& device) {
  if (device.is_cuda()) {
    at::globalContext().setAllowTF32CuBLAS(true);
    at::globalContext().setAllowTF32CuDNN(true);
  }
}

void configure_inference_device(const torch::Device& device) {
  if (device.is_cuda()) {
    at::globalContext().setAllowTF32CuBLAS(false);
    at::globalContext().setAllowTF32CuDNN(false);
  }
}

nlohmann::json cuda_memory_stats(const torch::Device& device) {
#if defined(MORPHEUS_HAS_CUDA_ALLOCATOR)
  if (device.is_cuda() && torch::cuda::is_available()) {
    // Index 0 of each stat array is the aggregate over pool types in every LibTorch version.
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    constexpr double kMb = 1024.0 * 1024.0;
    return {{"cuda_peak_allocated_mb", static_cast<double>(stats.allocated_bytes[0].peak) / kMb},
            {"cuda_peak_reserved_mb", static_cast<double>(stats.reserved_bytes[0].peak) / kMb},
            {"cuda_alloc_retries", stats.num_alloc_retries}};
  }
#else
  (void)device;
#endif
  return nlohmann::json::object();
}

namespace {

int collect_blas(struct dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* out = static_cast<BlasInfo*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  const std::string name = info->dlpi_name;
  const bool is_blas =
      name.find("libblas") != std::string::npos || name.find("openblas") != std::string::npos ||
      name.find("libmkl") != std::string::npos || name.find("libblis") != std::string::npos;
  if (!is_blas) return 0;
  char resolved[PATH_MAX];
  const std::string real = realpath(name.c_str(), resolved) != nullptr ? resolved : name;
  const bool optimized =
      real.find("openblas") != std::string::npos || real.find("mkl") != std::string::npos ||
      real.find("blis") != std::string::npos || real.find("atlas") != std::string::npos;
  // The generic libblas.so.3 decides which implementation serves calls; record it first.
  if (out->library.empty() || name.find("libblas.so") != std::string::npos) {
    out->library = real;
    out->optimized = optimized;
  }
  return 0;
}

}  // namespace

BlasInfo detect_blas() {
  BlasInfo info;
  dl_iterate_phdr(collect_blas, &info);
  return info;
}

void warn_if_slow_blas() {
  const BlasInfo info = detect_blas();
  if (!info.library.empty() && !info.optimized) {
    MORPHEUS_LOG(kWarning, "LibTorch is using the reference BLAS (", info.library,
                 "): matrix multiplication will run ~10x slower. Fix: apt-get install "
                 "libopenblas0-openmp (or: update-alternatives --config "
                 "libblas.so.3-x86_64-linux-gnu)");
  }
}

}  // namespace morpheus::model
