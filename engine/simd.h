// SPDX-License-Identifier: MIT
// MORPHEUS_SIMD_CLONES: a function compiled three times (AVX-512, AVX2 + FMA, base x86-64), the
// version the CPU runs picked once at load (GCC's target_clones). Its `omp simd` loops then use
// the widest vectors the machine has. Elsewhere (other compilers, other architectures) one version;
// also under the sanitizers, whose runtime is not ready when the dynamic loader runs the clones'
// resolvers (ThreadSanitizer crashes there).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MORPHEUS_SIMD_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MORPHEUS_SIMD_CLONES
#endif
