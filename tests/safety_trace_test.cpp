// Hostile ftrace text (issue 18, findings 1 and 10): a CPU column or `#P:` outside the
// CPU tables, timestamps that overflow or step back on a CPU. Each is an input error naming
// the file and the line, never a crash or garbage metrics.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyzer.h"
#include "cli/cli.h"
#include "extract/extract.h"
#include "host/ftrace_parser.h"
#include "report/json_text.h"
#include "temp_dir.h"
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
  EXPECT_EQ(error_of(with_cpu("-5")), "t.txt: line 2: CPU -5 is outside 0..4095");
}

TEST(HostileTrace, ACpuBeyondTheTablesIsAnError) {
  EXPECT_EQ(error_of(with_cpu("4095")), "");
  EXPECT_EQ(error_of(with_cpu("4096")), "t.txt: line 2: CPU 4096 is outside 0..4095");
  EXPECT_EQ(error_of(with_cpu("4000000000")), "t.txt: line 2: CPU 4000000000 is outside 0..4095");
}

TEST(HostileTrace, TheHeaderCpuCountIsRangeChecked) {
  EXPECT_EQ(error_of(std::string("# entries: 1/1   #P:4096\n") + kSwitch), "");
  EXPECT_EQ(error_of(std::string("# entries: 1/1   #P:4097\n") + kSwitch),
            "t.txt: line 1: #P:4097 is outside 1..4096");
  EXPECT_EQ(error_of(std::string("#\n#P:2000000000\n") + kSwitch),
            "t.txt: line 2: #P:2000000000 is outside 1..4096");
  EXPECT_EQ(error_of(std::string("#P:0\n") + kSwitch), "t.txt: line 1: #P:0 is outside 1..4096");
}

// trace-cmd report's first line, and report -l's CPU digits glued to the flags.
TEST(HostileTrace, TraceCmdsCpuColumnsAreRangeCheckedToo) {
  EXPECT_EQ(error_of(std::string("cpus=2\n") + kSwitch), "");
  EXPECT_EQ(error_of(std::string("cpus=5000\n") + kSwitch),
            "t.txt: line 1: cpus=5000 is outside 1..4096");
  const std::string latency =
      "a-101    5000d..2. 1.000100: sched_switch: prev_comm=a prev_pid=101 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=102 next_prio=120\n";
  EXPECT_EQ(error_of(latency), "t.txt: line 1: CPU 5000 is outside 0..4095");
  const std::string raw_negative =
      "a-101 [000] d..2. -1000: sched_switch: prev_comm=a prev_pid=101 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=102 next_prio=120\n";
  EXPECT_EQ(error_of(raw_negative), "t.txt: line 1: timestamp -1000 is outside 0..9223372036 s");
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
  EXPECT_EQ(error_of(back), "t.txt: line 2: time goes backwards on CPU 0: 1.000050 after 1.000100");
  // The earlier time keeps its nanoseconds when the line's own precision would drop them.
  const std::string ns_then_us =
      "a-101 [002] d..2. 1.000100500: sched_switch: prev_comm=a prev_pid=101 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=102 next_prio=120\n"
      "b-102 [002] d..2. 1.000050: sched_switch: prev_comm=b prev_pid=102 prev_prio=120 "
      "prev_state=S ==> next_comm=a next_pid=101 next_prio=120\n";
  EXPECT_EQ(error_of(ns_then_us),
            "t.txt: line 2: time goes backwards on CPU 2: 1.000050 after 1.000100500");
  const std::string other_cpu =
      std::string(kSwitch) +
      "c-103 [001] d..2. 1.000050: sched_switch: prev_comm=c prev_pid=103 prev_prio=120 "
      "prev_state=S ==> next_comm=d next_pid=104 next_prio=120\n";
  EXPECT_EQ(error_of(other_cpu), "");
}

// A process may name itself with any bytes; the JSON writers escape what is not UTF-8
// (finding 10: "internal error" from the JSON library before).
TEST(HostileTrace, ANonUtf8CommIsEscapedInJsonOutputs) {
  const std::string comm = "x\xff\xfey\xc3\xa9";  // two stray bytes, then a valid "é"
  const test::TempDir dir;
  const std::string trace =
      dir.write("t.txt",
                "a-101 [000] d..2. 1.000100: sched_switch: prev_comm=a prev_pid=101 "
                "prev_prio=120 prev_state=S ==> next_comm=" +
                    comm + " next_pid=102 next_prio=120\n" + comm +
                    "-102 [000] d..2. 1.000300: sched_switch: prev_comm=" + comm +
                    " prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=a next_pid=101 "
                    "next_prio=120\n");
  std::ostringstream out, err;
  ASSERT_EQ(cli_main({"analyze", trace, "--json", "--trace", dir.file("p.json")}, out, err), 0)
      << err.str();
  const auto metrics = nlohmann::json::parse(out.str());
  bool found = false;
  for (const auto& t : metrics["tasks"]) found |= t["name"] == "x\\xff\\xfey\xc3\xa9";
  EXPECT_TRUE(found) << out.str();
  const auto perfetto = nlohmann::json::parse(test::read_all(dir.file("p.json")));
  EXPECT_NE(perfetto.dump().find("x\\\\xff\\\\xfey"), std::string::npos);
}

TEST(JsonText, OnlyStrayBytesAreEscaped) {
  EXPECT_EQ(utf8_or_escaped("plain"), "plain");
  EXPECT_EQ(utf8_or_escaped("\xe2\x82\xac"), "\xe2\x82\xac");              // the euro sign, valid
  EXPECT_EQ(utf8_or_escaped("\xe2\x82"), "\\xe2\\x82");                    // cut short
  EXPECT_EQ(utf8_or_escaped("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(utf8_or_escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(utf8_or_escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // > U+10FFFF
  EXPECT_EQ(json_string("a\"\xff"), "\"a\\\"\\\\xff\"");
}

// extract writes a comm that is not UTF-8 as the same "\xNN" text, so that its scenario
// file is JSON that reads back.
TEST(JsonText, ExtractedScenarioEscapesStrayBytesOfAComm) {
  ExtractedWorkload w;
  XTask t;
  t.name = "x\xff\"y";
  w.tasks.push_back(t);
  w.notes.push_back("about x\xff");
  const std::string text = scenario_json(w, "trace\xfe.txt", "");
  const auto j = nlohmann::json::parse(text, nullptr, true, /*ignore_comments=*/true);
  EXPECT_TRUE(j["tasks"].contains("x\\xff\"y")) << text;
  EXPECT_EQ(j["name"], "extracted from trace\\xfe.txt");
}

}  // namespace
}  // namespace schedlab
