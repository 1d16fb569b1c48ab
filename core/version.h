// SPDX-License-Identifier: MIT
// The project's version: CMake's project(VERSION) and `git describe --always --dirty --tags` of
// the checkout it was built from (empty outside a git checkout). `morpheus --version`, the
// Python package's __version__, checkpoints and exported tokenizers all read it here.
#pragma once

#include <string>
#include <string_view>

namespace morpheus {

// "0.2.0": the release version, CMake's project(VERSION).
std::string_view version();
// "abc1234-dirty", "v0.2.0-3-gabc1234": the commit built, or "" when unknown.
std::string_view git_describe();
// "0.2.0 (abc1234-dirty)", or "0.2.0" when the commit is unknown.
std::string version_string();

}  // namespace morpheus
