// SPDX-License-Identifier: MIT
#include "core/status.h"

#include "core/check.h"

namespace morpheus {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kDataLoss:
      return "DATA_LOSS";
    case StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case StatusCode::kIoError:
      return "IO_ERROR";
    case StatusCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case StatusCode::kInternal:
      return "INTERNAL";
  }
  return "UNKNOWN";
}

Status& Status::prepend(const std::string& context) {
  if (!ok()) message_ = context + ": " + message_;
  return *this;
}

Status& Status::with_hint(std::string hint) {
  hint_ = std::move(hint);
  return *this;
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  return std::string(status_code_name(code_)) + ": " + message_;
}

void throw_bad_status_access(const Status& status) {
  throw InternalError("StatusOr::value() on an error: " + status.to_string());
}

}  // namespace morpheus
