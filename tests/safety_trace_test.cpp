// Hostile ftrace text (issue 18, findings 1 and 10): a CPU column or `#P:` outside the
// CPU tables, timestamps that overflow or step back on a CPU. Each is an input error naming
// the file and the line, never a crash or garbage metrics.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyzer.h"
#include "host/ftrace_parser.h"
#include "util/error.h"

namespace schedlab {
namespace {

const char* kSwitch =
    "a-101 [000] d..2. 1.000100: sched_switch: prev_comm=a prev_pid=101 prev_prio=120 "
    "prev_state=S ==> next_comm=b next_pid=102 next_prio=120\n";

// Parses `text`; the error message, or "" when it was accepted.
std::string error_of(const std::string& text) {
  std::istringstream in(text);
  Analyzer analyzer;
  try {
    parse_ftrace(in, "t.txt", analyzer);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A two-line trace with the CPU column of the second line replaced.
std::string with_cpu(const std::string& cpu) {
  return std::string(kSwitch) + "b-102 [" + cpu +
         "] d..2. 1.000200: sched_switch: prev_comm=b prev_pid=102 prev_prio=120 "
         "prev_state=S ==> next_comm=a next_pid=101 next_prio=120\n";
}

TEST(HostileTrace, ANegativeCpuIsAnErrorWithTheLine) {
  EXPECT_EQ(error_of(with_cpu("-5")), "t.txt: line 2: CPU -5 is outside 0..255");
}

TEST(HostileTrace, ACpuBeyondTheTablesIsAnError) {
  EXPECT_EQ(error_of(with_cpu("255")), "");
  EXPECT_EQ(error_of(with_cpu("256")), "t.txt: line 2: CPU 256 is outside 0..255");
  EXPECT_EQ(error_of(with_cpu("4000000000")), "t.txt: line 2: CPU 4000000000 is outside 0..255");
}

TEST(HostileTrace, TheHeaderCpuCountIsRangeChecked) {
  EXPECT_EQ(error_of(std::string("# entries: 1/1   #P:256\n") + kSwitch), "");
  EXPECT_EQ(error_of(std::string("# entries: 1/1   #P:257\n") + kSwitch),
            "t.txt: line 1: #P:257 is outside 1..256");
  EXPECT_EQ(error_of(std::string("#\n#P:2000000000\n") + kSwitch),
            "t.txt: line 2: #P:2000000000 is outside 1..256");
  EXPECT_EQ(error_of(std::string("#P:0\n") + kSwitch), "t.txt: line 1: #P:0 is outside 1..256");
}

TEST(HostileTrace, ATimestampThatOverflowsIsAnError) {
  const std::string big =
      "a-101 [000] d..2. 9223372037.000000: sched_switch: prev_comm=a prev_pid=101 "
      "prev_prio=120 prev_state=S ==> next_comm=b next_pid=102 next_prio=120\n";
  EXPECT_EQ(error_of(big), "t.txt: line 1: timestamp 9223372037.000000 is outside 0..9223372036 s");
  const std::string huge =
      "a-101 [000] d..2. 99999999999999999999.5: sched_switch: prev_comm=a prev_pid=101 "
      "prev_prio=120 prev_state=S ==> next_comm=b next_pid=102 next_prio=120\n";
  EXPECT_NE(error_of(huge).find("line 1: timestamp 99999999999999999999.5 is outside"),
            std::string::npos);
  const std::string negative =
      "a-101 [000] d..2. -3.000000: sched_switch: prev_comm=a prev_pid=101 "
      "prev_prio=120 prev_state=S ==> next_comm=b next_pid=102 next_prio=120\n";
  EXPECT_NE(error_of(negative).find("line 1: timestamp -3.000000 is outside"), std::string::npos);
}

// Time may interleave between CPUs but never step back on one CPU (its ring buffer is in
// time order).
TEST(HostileTrace, TimeGoingBackwardsOnACpuIsAnError) {
  const std::string back =
      std::string(kSwitch) +
      "b-102 [000] d..2. 1.000050: sched_switch: prev_comm=b prev_pid=102 prev_prio=120 "
      "prev_state=S ==> next_comm=a next_pid=101 next_prio=120\n";
  EXPECT_EQ(error_of(back),
            "t.txt: line 2: time goes backwards on CPU 0: 1.000050 after 1.000100000");
  const std::string other_cpu =
      std::string(kSwitch) +
      "c-103 [001] d..2. 1.000050: sched_switch: prev_comm=c prev_pid=103 prev_prio=120 "
      "prev_state=S ==> next_comm=d next_pid=104 next_prio=120\n";
  EXPECT_EQ(error_of(other_cpu), "");
}

}  // namespace
}  // namespace schedlab
