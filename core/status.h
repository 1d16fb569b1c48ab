// SPDX-License-Identifier: MIT
// Status / StatusOr: the error values returned by everything that reads files or parses user
// input. Contract violations throw instead (core/check.h). Only tools/ turns a Status into an
// exit code.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace morpheus {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad user input: a flag, a config value, malformed text
  kNotFound,            // a file or key that does not exist
  kDataLoss,            // a corrupt, truncated or mismatched file
  kFailedPrecondition,  // the system is not in a state to do this (e.g. missing stage)
  kIoError,             // the operating system refused a read or a write
  kUnimplemented,       // a feature not compiled in (e.g. CUDA)
  kInternal,            // a bug: should not happen
};

// "INVALID_ARGUMENT", "NOT_FOUND", ...
const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, std::string hint = {})
      : code_(code), message_(std::move(message)), hint_(std::move(hint)) {}

  static Status ok_status() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // A one-line suggestion for the likely fix; may be empty.
  const std::string& hint() const { return hint_; }

  // Adds context in front of the message: "reading x.tsv: line 3: ...".
  Status& prepend(const std::string& context);
  Status& with_hint(std::string hint);

  // "NOT_FOUND: message" (hint not included).
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string hint_;
};

inline Status ok_status() { return {}; }
inline Status invalid_argument(std::string msg, std::string hint = {}) {
  return {StatusCode::kInvalidArgument, std::move(msg), std::move(hint)};
}
inline Status not_found(std::string msg, std::string hint = {}) {
  return {StatusCode::kNotFound, std::move(msg), std::move(hint)};
}
inline Status data_loss(std::string msg, std::string hint = {}) {
  return {StatusCode::kDataLoss, std::move(msg), std::move(hint)};
}
inline Status failed_precondition(std::string msg, std::string hint = {}) {
  return {StatusCode::kFailedPrecondition, std::move(msg), std::move(hint)};
}
inline Status io_error(std::string msg, std::string hint = {}) {
  return {StatusCode::kIoError, std::move(msg), std::move(hint)};
}
inline Status internal_error(std::string msg, std::string hint = {}) {
  return {StatusCode::kInternal, std::move(msg), std::move(hint)};
}

// Holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = internal_error("StatusOr constructed from an OK status");
  }
  StatusOr(Status&& status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = internal_error("StatusOr constructed from an OK status");
  }
  StatusOr(const T& value) : value_(value) {}        // NOLINT(google-explicit-constructor)
  StatusOr(T&& value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // Precondition: ok(). Throws morpheus::InternalError otherwise.
  T& value() &;
  const T& value() const&;
  T&& value() &&;
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

[[noreturn]] void throw_bad_status_access(const Status& status);

template <typename T>
T& StatusOr<T>::value() & {
  if (!value_) throw_bad_status_access(status_);
  return *value_;
}
template <typename T>
const T& StatusOr<T>::value() const& {
  if (!value_) throw_bad_status_access(status_);
  return *value_;
}
template <typename T>
T&& StatusOr<T>::value() && {
  if (!value_) throw_bad_status_access(status_);
  return std::move(*value_);
}

}  // namespace morpheus

#define MORPHEUS_STATUS_CONCAT_INNER_(a, b) a##b
#define MORPHEUS_STATUS_CONCAT_(a, b) MORPHEUS_STATUS_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function when `expr` is not OK.
#define MORPHEUS_RETURN_IF_ERROR(expr)                           \
  do {                                                           \
    ::morpheus::Status morpheus_status_tmp_ = (expr);            \
    if (!morpheus_status_tmp_.ok()) return morpheus_status_tmp_; \
  } while (false)

// MORPHEUS_ASSIGN_OR_RETURN(auto x, load()); declares x from a StatusOr or returns its Status.
#define MORPHEUS_ASSIGN_OR_RETURN(lhs, expr) \
  MORPHEUS_ASSIGN_OR_RETURN_IMPL_(MORPHEUS_STATUS_CONCAT_(morpheus_so_, __LINE__), lhs, expr)
#define MORPHEUS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()
