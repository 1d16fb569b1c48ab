// SPDX-License-Identifier: MIT
// The one precompiled header shared by every LibTorch target (STYLE.md §4.6).
#pragma once

#include <torch/torch.h>
