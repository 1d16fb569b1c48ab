// SPDX-License-Identifier: MIT
// MORPHEUS_CHECK(cond, "msg ", value, ...): contract checks for torch-free code. On failure it
// throws morpheus::InternalError carrying file:line, the condition and the message, which is built
// only on failure. Use Status for anything user input can cause.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace morpheus {

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error(what) {}
};

namespace detail {
template <typename... Args>
std::string concat_message(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
[[noreturn]] void throw_check_failure(const char* file, int line, const char* condition,
                                      const std::string& message);
}  // namespace detail

}  // namespace morpheus

#define MORPHEUS_CHECK(cond, ...)                                                               \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      ::morpheus::detail::throw_check_failure(__FILE__, __LINE__, #cond,                        \
                                              ::morpheus::detail::concat_message(__VA_ARGS__)); \
    }                                                                                           \
  } while (false)
