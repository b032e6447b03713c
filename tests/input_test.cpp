// The JSON reader and every kind of bad input: each gets an error naming the file,
// the key and the reason.
#include <gtest/gtest.h>

#include "json/jtree.h"
#include "scenario/scenario.h"
#include "util/error.h"

namespace schedlab {
namespace {

TEST(JsonReader, KeepsDuplicateKeysInFileOrder) {
  const JValue v = parse_json(R"({"run": 1, "sleep": 2, "run": 3})", "f.json");
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.members[0].first, "run");
  EXPECT_EQ(v.members[2].second.integer, 3);
}

TEST(JsonReader, ToleratesCommentsAndTrailingCommasAndCountsThem) {
  JsonLeniency seen;
  const JValue v =
      parse_json("{ /* a */ \"a\": [1, 2,], // b\n \"b\": {\"c\": 1,}, }", "f.json", &seen);
  EXPECT_EQ(v.members.size(), 2u);
  EXPECT_EQ(seen.comments, 2);
  EXPECT_EQ(seen.trailing_commas, 3);
}

// As in real rt-app files (a fork's cg1.json, test2.json): an entry commented out leaves
// its comma before the closing brace, and a comma follows the file's last brace. json-c,
// rt-app's parser, takes both.
TEST(JsonReader, ToleratesACommaBeforeCommentsAndAtTheEnd) {
  JsonLeniency seen;
  const JValue v = parse_json(
      "{\"tasks\": {\"a\": {\"run\": 1},\n  // \"b\": {\n  /* \"run\": 2 */ //}\n },\n \"x\": "
      "1\n},\n",
      "f.json", &seen);
  ASSERT_EQ(v.members.size(), 2u);
  EXPECT_EQ(v.members[0].second.members.size(), 1u);
  EXPECT_EQ(seen.comments, 3);
  EXPECT_EQ(seen.trailing_commas, 2);
  // A comma before another value stays an error, at its place.
  try {
    parse_json("[1, // c\n ,2]", "f.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json: malformed JSON: line 2, column 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(JsonReader, SyntaxErrorNamesFileLineAndColumn) {
  try {
    parse_json("{\n  /* comment */\n  \"suspend\",\n}", "video.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("video.json: malformed JSON: line 4, column 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(JsonReader, PointerSetCreatesAndReplaces) {
  JValue v = parse_json(R"({"a": {"b": [1, 2]}})", "f.json");
  set_json_pointer(v, "/a/b/1", "7", "f.json");
  set_json_pointer(v, "/a/c", "text", "f.json");
  EXPECT_EQ(dump_json(v), R"({"a":{"b":[1,7],"c":"text"}})");
  EXPECT_THROW(set_json_pointer(v, "/a/b/5", "1", "f.json"), InputError);
}

struct BadCase {
  const char* name;
  std::string json;
  std::string expected;  // a piece of the message: the key and the reason
};

std::string wrap(const std::string& tasks) {
  return R"({"machine": {"cpus": 2}, "tasks": )" + tasks + "}";
}

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, IsRejectedWithKeyAndReason) {
  const BadCase& c = GetParam();
  try {
    scenario_from_text(c.json, "bad.json");
    FAIL() << "accepted: " << c.json;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("bad.json: ", 0), 0u) << what;
    EXPECT_NE(what.find(c.expected), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadInput,
    ::testing::Values(
        BadCase{"malformed", R"({"tasks": {"t": {"run": 1000,}})", "malformed JSON: line 1"},
        BadCase{"unknown_top", R"({"tasks": {"t": {"run": 1}}, "bogus": 1})", "bogus: unknown key"},
        BadCase{"unknown_task_key", wrap(R"({"t": {"colour": 1}})"), "tasks.t.colour: unknown key"},
        BadCase{"unknown_event_value_type", wrap(R"({"t": {"run": "fast"}})"),
                "tasks.t.run: expected an integer, found a string"},
        BadCase{"negative_duration", wrap(R"({"t": {"sleep": -5}})"),
                "tasks.t.sleep: negative duration -5"},
        BadCase{"overflow", wrap(R"({"t": {"run": 99999999999999999999}})"),
                "tasks.t.run: number overflows"},
        BadCase{"too_long", wrap(R"({"t": {"run": 9000000000000000}})"),
                "tasks.t.run: duration 9000000000000000 overflows"},
        BadCase{"bad_global_duration",
                R"({"global": {"duration": -7}, "tasks": {"t": {"run": 1}}})",
                "global.duration: negative duration"},
        BadCase{"unknown_policy", wrap(R"({"t": {"policy": "SCHED_FAST", "run": 1}})"),
                "tasks.t.policy: unknown policy 'SCHED_FAST'"},
        BadCase{"nice_range", wrap(R"({"t": {"priority": 25, "run": 1}})"),
                "tasks.t.priority: 25 is outside -20..19"},
        BadCase{"rt_range", wrap(R"({"t": {"policy": "SCHED_FIFO", "priority": 0, "run": 1}})"),
                "tasks.t.priority: 0 is outside 1..99"},
        BadCase{"cpu_outside", wrap(R"({"t": {"cpus": [5], "run": 1}})"),
                "tasks.t.cpus: CPU 5 is outside the machine"},
        BadCase{"phase_cpu_outside", wrap(R"({"t": {"phases": {"p": {"cpus": [2], "run": 1}}}})"),
                "tasks.t.phases.p.cpus: CPU 2 is outside"},
        BadCase{"undefined_fork", wrap(R"({"t": {"fork": "nobody"}})"),
                "tasks.t.fork: fork of an undefined task 'nobody'"},
        BadCase{"mutex_never_locked", wrap(R"({"t": {"unlock": "m"}})"),
                "mutex 'm', which no task ever locks"},
        BadCase{"wait_mutex_never_locked", wrap(R"({"t": {"wait": {"ref": "c", "mutex": "m"}}})"),
                "mutex 'm', which no task ever locks"},
        BadCase{"counter_never_advanced",
                wrap(R"({"t": {"wait_progress": {"ref": "rows", "value": 3}}})"),
                "counter 'rows', which no task advances"},
        BadCase{"timer_without_period", wrap(R"({"t": {"timer": {"ref": "x"}}})"),
                "tasks.t.timer.period: missing"},
        BadCase{"timer_mode",
                wrap(R"({"t": {"timer": {"ref": "x", "period": 5, "mode": "sometimes"}}})"),
                "tasks.t.timer.mode: expected \"relative\" or \"absolute\""},
        BadCase{"no_tasks", R"({"global": {}})", "tasks: missing"},
        BadCase{"empty_task", wrap(R"({"t": {"loop": 3}})"), "tasks.t: the task has no events"},
        BadCase{"machine_key",
                R"({"machine": {"cpus": 2, "hertz": 1}, "tasks": {"t": {"run": 1}}})",
                "machine.hertz: unknown key"},
        BadCase{"machine_cpus", R"({"machine": {"cpus": 0}, "tasks": {"t": {"run": 1}}})",
                "machine.cpus: 0 is outside 1..4096"},
        BadCase{
            "topology_twice",
            R"({"machine": {"cpus": 2, "topology": {"llc": [[0, 1], [1]]}}, "tasks": {"t": {"run": 1}}})",
            "machine.topology.llc[1]: CPU 1 is in two groups"},
        BadCase{"unknown_generator",
                R"({"workload": {"generator": "x265"}, "tasks": {"t": {"run": 1}}})",
                "workload.generator: unknown generator 'x265'"},
        BadCase{"bad_pointer", R"({"tasks": {"t": {"run": [1]}}})",
                "tasks.t.run: expected an integer, found an array"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(BadInput, SetOverridesArePathChecked) {
  ScenarioOverrides o;
  o.sets = {{"/tasks/t/run/0", "5"}};
  EXPECT_THROW(scenario_from_text(R"({"tasks": {"t": {"run": 1}}})", "f.json", o), InputError);
}

TEST(BadInput, NegativeCommandLineDurationIsRejected) {
  ScenarioOverrides o;
  o.duration_s = -1;
  EXPECT_THROW(scenario_from_text(R"({"tasks": {"t": {"run": 1}}})", "f.json", o), InputError);
}

}  // namespace
}  // namespace schedlab
