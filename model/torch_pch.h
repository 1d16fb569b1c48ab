// SPDX-License-Identifier: MIT
// The one precompiled header shared by every LibTorch target (cmake/morpheus_defaults.cmake).
#pragma once

#include <torch/torch.h>
