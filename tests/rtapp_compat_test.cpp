// rt-app files as rt-app takes them: taskgroups, utilization clamps and NUMA bindings
// accepted and recorded, endless phases and runs, rt-app's dl-period default, unknown
// global keys ignored with a note; and a plain file runs under the host kernel's model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.h"
#include "cli_harness.h"
#include "harness.h"
#include "host/host_machine.h"
#include "util/error.h"

namespace schedlab {
namespace {

using test::cli;
using test::CliResult;
using test::write_temp;

using test::run_text;

Scenario parse(const std::string& json, const std::string& policy = "rr") {
  ScenarioOverrides o;
  o.policy = policy;
  return scenario_from_text(json, "f.json", o);
}

std::string error_of(const std::string& json, const std::string& policy = "rr") {
  try {
    parse(json, policy);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string notes_of(const Scenario& s) {
  std::string all;
  for (const std::string& n : s.notes) all += n + "\n";
  return all;
}

TEST(RtAppTaskgroup, OneGroupForEveryTaskRunsWithANote) {
  const Scenario s = parse(R"({"tasks": {
      "a": {"taskgroup": "/tg1", "loop": 1, "run": 1000},
      "b": {"instance": 2, "taskgroup": "/tg1", "loop": 1, "run": 1000}}})");
  EXPECT_EQ(s.workload.tasks[0].taskgroup, "/tg1");
  EXPECT_EQ(notes_of(s),
            "taskgroup /tg1 recorded; no group scheduling is modelled, and here it would not "
            "change the schedule (every task is in that one group)\n");
}

TEST(RtAppTaskgroup, OneThreadMovingBetweenGroupsRuns) {
  // rt-app's tutorial example 11: a phase's group holds until a later phase names another.
  const Scenario s = parse(R"({"tasks": {"t": {"loop": 1, "phases": {
      "p0": {"run": 1000, "taskgroup": "/tg1/tg11"}, "p1": {"run": 1000},
      "p2": {"run": 1000, "taskgroup": "/"}}}}})");
  EXPECT_EQ(s.workload.tasks[0].phases[0].taskgroup, "/tg1/tg11");
  EXPECT_FALSE(s.workload.tasks[0].phases[1].taskgroup);
  EXPECT_NE(notes_of(s).find("(there is one thread)"), std::string::npos) << notes_of(s);
}

TEST(RtAppTaskgroup, GroupsThatWouldShareByGroupAreRefusedNamingThePolicy) {
  const std::string two_groups = R"({"tasks": {
      "a": {"taskgroup": "/tg1", "loop": 1, "run": 1000},
      "b": {"loop": 1, "run": 1000}}})";
  for (const char* policy : {"eevdf", "cfs-2.6.32", "bfs", "rr"})
    EXPECT_EQ(error_of(two_groups, policy),
              std::string("f.json: tasks.a.taskgroup: policy '") + policy +
                  "' has no group scheduling (tasks in /, /tg1 would share the CPUs by group)");
  // Instances of one task in a group and a forked task outside it.
  EXPECT_NE(error_of(R"({"tasks": {"a": {"taskgroup": "/g", "loop": 1, "fork": "b", "run": 1},
      "b": {"instance": 0, "loop": 1, "run": 1}}})")
                .find("has no group scheduling"),
            std::string::npos);
  // An RT task outside the groups does not count: fair group scheduling is the fair class's.
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"taskgroup": "/g", "loop": 1, "run": 1},
      "b": {"taskgroup": "/g", "loop": 1, "run": 1},
      "rt": {"policy": "SCHED_FIFO", "loop": 1, "run": 1}}})"),
            "(accepted)");
}

TEST(RtAppTaskgroup, RtAppsOwnRulesAreKept) {
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"policy": "SCHED_FIFO", "taskgroup": "/g", "run": 1}}})"),
            "f.json: tasks.a.taskgroup: no taskgroup support for policy SCHED_FIFO (rt-app "
            "refuses it)");
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"taskgroup": "/g", "phases": {
      "p": {"policy": "SCHED_DEADLINE", "dl-runtime": 100, "dl-period": 1000, "run": 1}}}}})"),
            "f.json: tasks.a.phases.p: no taskgroup support for policy SCHED_DEADLINE (rt-app "
            "refuses it)");
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"taskgroup": "tg", "run": 1}}})"),
            "f.json: tasks.a.taskgroup: a taskgroup is a path starting with '/', as rt-app "
            "requires");
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"taskgroup": "", "run": 1}}})"), "(accepted)");
  std::string many = R"({"tasks": {"a": {"phases": {)";
  for (int i = 0; i < 33; ++i)
    many += fmt::format(R"({}"p{}": {{"taskgroup": "/g{}", "run": 1}})", i ? "," : "", i, i);
  EXPECT_EQ(error_of(many + "}}}}"),
            "f.json: tasks.a.phases.p32.taskgroup: more than 32 taskgroups (rt-app's limit)");
}

// A phase's dl-* stand on their own, as rt-app's parse_sched_data() reads them: a phase
// giving only dl-runtime has dl-period = dl-deadline = that runtime, not the task's
// period; a phase with no dl-* key keeps the task's.
TEST(RtAppPhases, APhasesDeadlineParametersDoNotInheritTheTasks) {
  const Scenario s = parse(R"({"tasks": {"a": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000,
      "dl-period": 10000, "loop": 1, "phases": {
        "p": {"dl-runtime": 500, "run": 1},
        "q": {"priority": 0, "run": 1}}}}})");
  const auto& phases = s.workload.tasks[0].phases;
  ASSERT_TRUE(phases[0].sched.has_value());
  EXPECT_EQ(phases[0].sched->dl_runtime_ns, 500'000);
  EXPECT_EQ(phases[0].sched->dl_period_ns, 500'000);
  EXPECT_EQ(phases[0].sched->dl_deadline_ns, 500'000);
  ASSERT_TRUE(phases[1].sched.has_value());
  EXPECT_EQ(phases[1].sched->dl_period_ns, 10'000'000);
}

TEST(RtAppClamps, UtilMinMaxAndNodesMembindAreRecordedWithANote) {
  const Scenario s = parse(R"({"tasks": {
      "a": {"util_min": 128, "util_max": 512, "nodes_membind": [0, 1], "loop": 1, "run": 1},
      "b": {"phases": {"p": {"util_max": 1024, "nodes_membind": [2], "run": 1}}}}})");
  EXPECT_EQ(s.workload.tasks[0].sched.util_min, 128);
  EXPECT_EQ(s.workload.tasks[0].sched.util_max, 512);
  EXPECT_EQ(s.workload.tasks[0].nodes_membind, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.workload.tasks[1].phases[0].sched->util_max, 1024);
  EXPECT_EQ(s.workload.tasks[1].phases[0].nodes_membind, (std::vector<int>{2}));
  EXPECT_EQ(notes_of(s),
            "util_min/util_max of a, tasks.b.phases.p recorded; no effect: the model has no "
            "utilization clamping (uclamp)\n"
            "nodes_membind of a, tasks.b.phases.p recorded; no effect: the machine model has no "
            "NUMA nodes\n");
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"util_min": 1025, "run": 1}}})"),
            "f.json: tasks.a.util_min: 1025 is outside -1..1024");
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"util_min": 600, "util_max": 500, "run": 1}}})"),
            "f.json: tasks.a.util_min: util_min 600 is above util_max 500");
  EXPECT_TRUE(notes_of(parse(R"({"tasks": {"a": {"util_min": -1, "run": 1}}})")).empty());
}

// One CPU under rr: phase "a" (loop -1) marks every 1 ms and phase "b" is never reached.
// rt-app's grub-support branch asks SCHED_DEADLINE's bandwidth reclaiming per task
// (doc/examples/deadline_reclaim-*.json there): recorded, with a note, when true.
TEST(RtAppClamps, DlReclaimIsRecordedWithANote) {
  const Scenario s = parse(R"({"tasks": {
      "a": {"policy": "SCHED_DEADLINE", "dl-runtime": 100, "dl-period": 1000,
            "dl-reclaim": true, "loop": 1, "run": 50},
      "b": {"policy": "SCHED_DEADLINE", "dl-runtime": 100, "dl-period": 1000,
            "dl-reclaim": false, "loop": 1, "run": 50}}})");
  EXPECT_EQ(notes_of(s),
            "dl-reclaim of a recorded; no effect: the deadline class does not model GRUB's "
            "bandwidth reclaiming (SCHED_FLAG_RECLAIM)\n");
  EXPECT_EQ(error_of(R"({"tasks": {"a": {"dl-reclaim": "yes", "run": 1}}})"),
            "f.json: tasks.a.dl-reclaim: expected a boolean, found a string");
}

TEST(RtAppEndless, APhaseLoopOfMinusOneNeverEnds) {
  ScenarioOverrides o;
  o.policy = "rr";
  o.duration_s = 0.0105;
  const auto r = run_text(R"({"machine": {"cpus": 1}, "tasks": {"t": {"loop": 1, "phases": {
      "a": {"loop": -1, "run": 1000, "mark": "a"}, "b": {"run": 1000, "mark": "b"}}}}})",
                          o);
  EXPECT_EQ(r.metrics.marks.at("a").count, 10u);
  EXPECT_EQ(r.metrics.marks.count("b") ? r.metrics.marks.at("b").count : 0u, 0u);
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"phases": {"a": {"loop": 0, "run": 1}}}}})"),
            "f.json: tasks.t.phases.a.loop: a phase runs at least once (-1: for ever)");
}

TEST(RtAppEndless, ARunOfMinusOneRunsForEver) {
  ScenarioOverrides o;
  o.policy = "rr";
  o.duration_s = 0.05;
  const auto r = run_text(R"({"machine": {"cpus": 1}, "tasks": {
      "t": {"loop": 1, "run": -1, "mark": "never"}}})",
                          o);
  EXPECT_EQ(r.task("t").cpu_time_ns, 50'000'000);
  EXPECT_EQ(r.metrics.marks.count("never") ? r.metrics.marks.at("never").count : 0u, 0u);
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"run": -2}}})"),
            "f.json: tasks.t.run: negative duration -2");
}

TEST(RtAppDeadline, DlPeriodDefaultsToDlRuntimeAsInRtApp) {
  // custom-slice.json's SCHED_DEADLINE task names only dl-runtime.
  const Scenario s =
      parse(R"({"tasks": {"d": {"policy": "SCHED_DEADLINE", "dl-runtime": 200000, "run": 1}}})");
  EXPECT_EQ(s.workload.tasks[0].sched.dl_period_ns, 200'000'000);
  EXPECT_EQ(s.workload.tasks[0].sched.dl_deadline_ns, 200'000'000);
  const Scenario p = parse(R"({"tasks": {"d": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000,
      "dl-period": 10000, "run": 1}}})");
  EXPECT_EQ(p.workload.tasks[0].sched.dl_deadline_ns, 10'000'000);  // = dl-period
  EXPECT_EQ(error_of(R"({"tasks": {"d": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000,
      "dl-deadline": 5000, "run": 1}}})"),
            "f.json: tasks.d.dl-period: needs dl-runtime <= dl-deadline <= dl-period (dl-period "
            "defaults to dl-runtime, as in rt-app)");
}

// origin_ns is one grid per timer: two steps of one ref that disagree are refused.
TEST(RtAppTimer, ATimerWithTwoOriginsIsRefusedNamingTheKey) {
  const std::string json = R"({"machine": {"cpus": 1}, "tasks": {
      "a": {"loop": 1, "timer": {"ref": "t", "period": 1000, "origin_ns": 5}},
      "b": {"loop": 1, "timer": {"ref": "t", "period": 1000, "origin_ns": ORIGIN}}}})";
  auto with = [&](const std::string& origin) {
    std::string s = json;
    s.replace(s.find("ORIGIN"), 6, origin);
    return error_of(s);
  };
  EXPECT_EQ(with("5"), "(accepted)");
  EXPECT_NE(with("6").find("tasks.b.timer.origin_ns"), std::string::npos) << with("6");
  EXPECT_NE(with("6").find("already has origin_ns 5"), std::string::npos) << with("6");
  EXPECT_NE(with("\"x\"").find("tasks.b.timer.origin_ns"), std::string::npos) << with("\"x\"");
}

TEST(RtAppGlobal, UnknownGlobalKeysAreIgnoredWithANoteNamingThem) {
  const Scenario s = parse(R"({"global": {"duration": 1, "durations": 2, "frobnicate": true},
      "tasks": {"t": {"loop": 1, "run": 1}}})");
  EXPECT_EQ(notes_of(s),
            "global.durations, global.frobnicate: not rt-app keys; ignored, as rt-app ignores "
            "them\n");
  EXPECT_EQ(s.duration_ns, kNsPerSec);
}

// Two hogs at nice 0 and 19 on one CPU: rr ignores nice (a half each); the kernel's
// weights 1024 and 15 give 98.6 % and 1.4 %.
TEST(RtAppDefaultPolicy, APlainFileRunsUnderTheHostKernelsModel) {
  const std::string f = write_temp("rtapp_plain.json", R"({"global": {"duration": 1},
      "tasks": {"hog": {"loop": -1, "run": 10000}, "nice": {"loop": -1, "priority": 19, "run": 10000}}})");
  const CliResult r = cli({"run", f, "--cpus", "1", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::string model = model_for_kernel(host_kernel_release());
  EXPECT_EQ(j["policy"], model);
  EXPECT_EQ(j["policy_note"], "the file names no scheduler: " + model +
                                  " is the model of this host's kernel " + host_kernel_release() +
                                  "; --policy rr runs the engine's round robin");
  const double hog = j["tasks"][0]["cpu_time_ns"].get<double>() / 1e9;
  EXPECT_NEAR(hog, 1024.0 / 1039.0, 0.02);
  const CliResult table = cli({"run", f, "--cpus", "1"});
  EXPECT_NE(table.out.find("\npolicy: the file names no scheduler: " + model), std::string::npos)
      << table.out;

  const auto rr =
      nlohmann::json::parse(cli({"run", f, "--cpus", "1", "--json", "--policy", "rr"}).out);
  EXPECT_EQ(rr["policy"], "rr");
  EXPECT_FALSE(rr.contains("policy_note"));
  EXPECT_NEAR(rr["tasks"][0]["cpu_time_ns"].get<double>() / 1e9, 0.5, 0.02);
  // A file that names its scheduler keeps it, and no note.
  const std::string named = write_temp("rtapp_named.json", R"({"scheduler": "bfs",
      "global": {"duration": 1}, "tasks": {"t": {"loop": 1, "run": 100}}})");
  const auto b = nlohmann::json::parse(cli({"run", named, "--json"}).out);
  EXPECT_EQ(b["policy"], "bfs");
  EXPECT_FALSE(b.contains("policy_note"));
}

// A file LISA generated (its RTA ramp: phases p000001.. of one timer task), committed in
// ARM-software/lisa's results and copied to tests/data/rtapp: it runs to its end. By hand:
// 93 periods of 32 ms, 3 × 31 and 187 of 16 ms make 7.456 s and 373 activations; the CPU
// time is 93 × 3.2 + 31 × (1.6 + 4.8 + 8) + 187 × 9.6 = 2539.2 ms; the least slack is
// 16 − 9.6 = 6.4 ms. One task on two CPUs never waits.
TEST(RtAppLisa, ALisaGeneratedRampRunsToItsEnd) {
  const std::string file =
      std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/rtapp/lisa-ramp-test_00.json";
  const CliResult r = cli({"run", file, "--json", "--check-invariants"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["duration_ns"], 7'456'000'000LL);
  const auto& t = j["tasks"][0];
  EXPECT_EQ(t["name"], "task_lrh");
  EXPECT_EQ(t["cpu_time_ns"], 2'539'200'000LL);
  EXPECT_EQ(t["wait_time_ns"], 0);
  EXPECT_EQ(t["timer"]["activations"], 373);
  EXPECT_EQ(t["timer"]["missed_periods"], 0);
  EXPECT_EQ(t["timer"]["slack_min_ns"], 6'400'000);
}

// rt-app's own examples that name taskgroups and custom slices (in rt-app's source tree,
// doc/examples; not in Debian's rt-app 1.0). SCHEDLAB_RTAPP_EXAMPLES names a folder
// holding them when RTAPP_EXAMPLES_DIR does not.
TEST(RtAppExamples, TaskgroupAndCustomSliceExamplesRun) {
  std::vector<std::filesystem::path> dirs = {RTAPP_EXAMPLES_DIR};
  if (const char* env = std::getenv("SCHEDLAB_RTAPP_EXAMPLES")) dirs.insert(dirs.begin(), env);
  const std::vector<std::string> files = {"tutorial/example10.json", "tutorial/example11.json",
                                          "custom-slice.json"};
  std::filesystem::path dir;
  for (const auto& d : dirs)
    if (std::filesystem::exists(d / files[0])) dir = d;
  if (dir.empty())
    GTEST_SKIP() << "rt-app's tutorial example10.json, example11.json and custom-slice.json "
                    "are not installed (Debian's rt-app 1.0 lacks them); set "
                    "SCHEDLAB_RTAPP_EXAMPLES to rt-app's doc/examples to run them";
  for (const std::string& name : files) {
    const std::string file = (dir / name).string();
    const CliResult r =
        cli({"run", file, "--cpus", "2", "--duration", "0.2", "--json", "--check-invariants"});
    ASSERT_EQ(r.code, 0) << file << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["tasks"][0]["cpu_time_ns"].get<int64_t>(), 0) << file;
    if (name.find("example1") != std::string::npos) {
      EXPECT_NE(r.err.find("taskgroup /"), std::string::npos) << r.err;
    }
  }
}

}  // namespace
}  // namespace schedlab
