// SPDX-License-Identifier: MIT
// Where the running program finds its data. A build tree runs from the checkout and reads the
// npm data packages under node_modules/ (relative to the working directory); an installed
// program (`cmake --install`: <prefix>/bin/X, or the pip package's morpheus/bin/X) reads the
// copies installed beside it in <prefix>/share/morpheus.
#pragma once

#include <string>

namespace morpheus {

// The directory of the running executable (from /proc/self/exe), or "." when it cannot be read.
std::string executable_dir();

// <prefix>/share/morpheus when the running executable is <prefix>/bin/X and that directory
// exists (an installed program), else "" (a build tree).
std::string installed_share_dir();

// A data file as the running program finds it: <share>/<installed_name> when installed (see
// installed_share_dir), else `checkout_path` unchanged (node_modules/... of the checkout).
std::string data_path(const std::string& checkout_path, const std::string& installed_name);

}  // namespace morpheus
