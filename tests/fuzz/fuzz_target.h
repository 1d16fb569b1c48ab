// SPDX-License-Identifier: MIT
// The libFuzzer entry point every fuzz target defines.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
