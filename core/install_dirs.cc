// SPDX-License-Identifier: MIT
#include "core/install_dirs.h"

#include <unistd.h>

#include <filesystem>

#include "core/file_util.h"

namespace morpheus {

std::string executable_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  const std::string self(buf, static_cast<size_t>(n));
  const size_t slash = self.rfind('/');
  return slash == std::string::npos ? std::string(".") : self.substr(0, slash);
}

std::string installed_share_dir() {
  const std::string share =
      std::filesystem::path(executable_dir() + "/../share/morpheus").lexically_normal().string();
  return dir_exists(share) ? share : std::string();
}

std::string data_path(const std::string& checkout_path, const std::string& installed_name) {
  const std::string share = installed_share_dir();
  return share.empty() ? checkout_path : path_join(share, installed_name);
}

}  // namespace morpheus
