// thrown_oom: the OutOfMemoryError that a call must throw, for the tests of memory plans and caps.
#pragma once
#include <gtest/gtest.h>

#include <optional>

#include "base/errors.h"

namespace ts::test {

/// Runs `f`, which must throw OutOfMemoryError, and returns the error; a non-fatal test failure
/// ("expected OutOfMemoryError") and nullopt when `f` returns. Other exceptions pass through.
template <class F>
std::optional<OutOfMemoryError> thrown_oom(F&& f) {
  try {
    f();
  } catch (const OutOfMemoryError& e) {
    return e;
  }
  ADD_FAILURE() << "expected OutOfMemoryError";
  return std::nullopt;
}

}  // namespace ts::test
