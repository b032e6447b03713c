// What every harness shares: the input as text, and the errors that are answers, not
// findings. An InputError or WorkloadError is how bad input must end (exit 2); anything
// else escaping (InvariantError, bad_alloc, a standard-library exception), a sanitizer
// report, a crash, a hang or running out of memory is a finding: libFuzzer stops on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/error.h"

namespace schedlab::fuzz {

inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `f`; the answers bad input may get are swallowed.
template <class F>
void expecting_input_errors(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const WorkloadError&) {
  }
}

}  // namespace schedlab::fuzz
