// SPDX-License-Identifier: MIT
// Status -> Python exception for the morpheus extension modules: INVALID_ARGUMENT is ValueError,
// NOT_FOUND is FileNotFoundError, IO_ERROR is OSError, every other code RuntimeError. The text is
// the Status message, then "\nhint: <hint>" when there is one (as the CLI prints them).
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "core/status.h"

namespace morpheus::python {

[[noreturn]] inline void raise_status(const Status& status) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
      type = PyExc_ValueError;
      break;
    case StatusCode::kNotFound:
      type = PyExc_FileNotFoundError;
      break;
    case StatusCode::kIoError:
      type = PyExc_OSError;
      break;
    default:
      break;
  }
  std::string text = status.message();
  if (!status.hint().empty()) text += "\nhint: " + status.hint();
  PyErr_SetString(type, text.c_str());
  throw pybind11::error_already_set();
}

inline void check(const Status& status) {
  if (!status.ok()) raise_status(status);
}

template <typename T>
T value_or_raise(StatusOr<T> value) {
  if (!value.ok()) raise_status(value.status());
  return std::move(*value);
}

}  // namespace morpheus::python
