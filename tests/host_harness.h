// What the tests that use the real kernel's tracing share: whether they can (root and a
// tracefs that can be mounted or found), and the skip when they cannot.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "host/tracefs.h"

namespace schedlab::test {

inline bool tracefs_usable() {
  if (geteuid() != 0) return false;
  std::string why;
  return !find_tracefs("", true, &why).empty();
}

}  // namespace schedlab::test

#define NEEDS_TRACEFS() \
  if (!schedlab::test::tracefs_usable()) GTEST_SKIP() << "needs root and tracefs"
