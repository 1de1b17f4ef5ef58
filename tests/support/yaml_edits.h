// Helpers for tests that feed a library reader edited text and expect an InputError.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "sim/core/input_error.h"

namespace scalecast::testing {

// `text` with the first `from` replaced by `to`; a test failure when `from` is absent (the edit
// would silently test nothing).
inline std::string replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// Runs `parse(text)` expecting an InputError and returns it for the caller to check its file and
// field; a test failure when none is thrown.
template <typename Parse>
InputError input_error_of(Parse parse, const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError("", "", "");
}

}  // namespace scalecast::testing
