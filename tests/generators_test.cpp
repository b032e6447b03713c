// Workload generators: x264's structure and lag, checked against hand computations, and
// every shipped scenario under every policy.
#include "workload/generators/generators.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "harness.h"
#include "policy/registry.h"
#include "util/error.h"
#include "workload/generators/builder.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

// mv_range_thread's lag in rows: max_range = (h + 24) / threads - 24, r = clamp(max_range
// / 2, me_range, 512), rounded up so r + 24 is a multiple of 16; K = (r + 24) / 16.
TEST(X264, RowLagFollowsMvRangeThread) {
  EXPECT_EQ(x264_row_lag(576, 6, 16), 4);   // docs/workloads/x264.md's worked example: r = 40
  EXPECT_EQ(x264_row_lag(576, 2, 16), 11);  // 276 / 2 = 138 -> 162 -> 176
  EXPECT_EQ(x264_row_lag(576, 8, 16), 4);   // 51 / 2 = 25 -> 49 -> 64
  EXPECT_EQ(x264_row_lag(576, 1, 16), 20);  // 576 / 2 = 288 -> 312 -> 320
  EXPECT_EQ(x264_row_lag(720, 4, 16), 7);   // 162 / 2 = 81 -> 105 -> 112
  EXPECT_EQ(x264_row_lag(48, 2, 16), 3);    // 12 / 2 = 6, clamped to 16 -> 40 -> 48
  EXPECT_EQ(x264_row_lag(576, 6, 24), 4);   // 38 -> 62 -> 64
}

std::string x264_scenario(const std::string& params, int cpus = 1) {
  return fmt::format(R"({{"machine": {{"cpus": {}, "hz": 1000}}, "global": {{"duration": 100}},
      "workload": {{"generator": "x264", {}}}}})",
                     cpus, params);
}

// One CPU under rr (FIFO, no preemption within the run): 2 frame threads, 4 frames of
// 3 rows (K = 3, so each frame waits for the whole previous one), E1 A's ultrafast --qp
// (no lookahead work at all). By hand, as x264.c and x264_encoder_encode() @8e67a586 do
// it: the main thread reads frame 0 itself, and each next frame in a helper started once
// the previous one is taken; per frame it forks the frame thread, then joins the frame
// that used the other context (k + 1 - 2), and at the end the last one.
TEST(X264, TwoThreadsFourFramesRunInTheOrderComputedByHand) {
  ScenarioOverrides o;
  o.policy = "rr";
  const RunOutput r =
      run_text(x264_scenario(R"("preset": "ultrafast", "threads": 2, "frames": 4, "width": 32,
                        "height": 48, "sync_lookahead": 0, "ratecontrol": "cqp", "jitter": 0)"),
               o);
  // Costs (area 6/1584 of 4CIF): frame 28968.18 ns; main 869 ns; input 378 ns; no lowres,
  // no decision; rows of the 27721.18 ns left: I 6160 ns, P 10267 ns (weights 0.6 and 1
  // over a mean of 0.9). main 0-1247 (read 0, fork reader 1, serial, fork frame 0), waits
  // for reader 1 (1247-1625), frame 0 (1625-20105), main forks reader 2 and frame 1 and
  // joins frame 0 (20105-20974), reader 2, frame 1, and so on.
  EXPECT_EQ(
      r.switch_ins(),
      (Lines{"0 0 x264", "0.001247 0 x264-input-0", "0.001625 0 x264-frame0-0", "0.020105 0 x264",
             "0.020974 0 x264-input-1", "0.021352 0 x264-frame1-0", "0.052153 0 x264",
             "0.053022 0 x264-input-2", "0.0534 0 x264-frame2-0", "0.084201 0 x264",
             "0.08507 0 x264-frame3-0", "0.115871 0 x264", "0.115871 0 idle"}));
  std::vector<std::string> blocked;
  int marks = 0;
  for (const SchedEvent& e : r.events) {
    if (e.type == EventType::kBlock) blocked.push_back(r.names[e.task]);
    if (e.type == EventType::kMark) ++marks;
  }
  EXPECT_EQ(blocked, (Lines{"x264", "x264", "x264", "x264"}));  // 3 reads, the last join
  EXPECT_EQ(marks, 4);
  EXPECT_EQ(r.metrics.marks.at("frames").count, 4u);
}

// encoder.c:1522-1523 @8e67a586: a frame thread calls nice(10) on itself when a sync
// lookahead is on; the main, lookahead and input threads keep nice 0.
TEST(X264, FrameThreadsRunAtNiceTenWithTheSyncLookahead) {
  auto nices = [](const std::string& params) {
    std::map<std::string, std::set<int>> by_kind;
    const Scenario s = scenario_from_text(x264_scenario(params), "t");
    for (const TaskSpec& t : s.workload.tasks) {
      const std::string kind = t.name.rfind("x264-frame", 0) == 0 ? "frame" : t.name;
      by_kind[kind].insert(t.sched.nice);
    }
    return by_kind;
  };
  const std::string base = R"("preset": "medium", "frames": 8, "width": 64, "height": 64, )";
  const auto on = nices(base + R"("threads": 3)");
  EXPECT_EQ(on.at("frame"), (std::set<int>{10}));
  EXPECT_EQ(on.at("x264"), (std::set<int>{0}));
  EXPECT_EQ(on.at("x264-lookahead"), (std::set<int>{0}));
  EXPECT_EQ(on.at("x264-input"), (std::set<int>{0}));
  const auto off = nices(base + R"("threads": 3, "sync_lookahead": 0)");
  EXPECT_EQ(off.at("frame"), (std::set<int>{0}));
  EXPECT_EQ(off.count("x264-lookahead"), 0u);
  const auto one = nices(base + R"("threads": 1)");  // one thread: sync forced to 0
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(one.at("x264"), (std::set<int>{0}));
  EXPECT_EQ(nices(base + R"("threads": 3, "frame_nice": 5)").at("frame"), (std::set<int>{5}));
}

// encoder.c:523-526 @8e67a586: a non-zero sync lookahead is at least threads + bframes.
TEST(X264, SyncLookaheadIsAtLeastThreadsPlusBframes) {
  // medium (3 B frames) at 3 threads: auto = 6, the FIFO holds 6 + 3; the encoder's
  // delay is slicetype_length (40, rc-lookahead with mbtree) + 6 frames read before the
  // first frame thread starts (encoder.c:798-807, 1654).
  const RunOutput r = run_text(x264_scenario(
      R"("preset": "medium", "threads": 3, "frames": 60, "width": 16, "height": 64, "jitter": 0)",
      2));
  Time first_frame = -1;
  int reads_before = 0;
  for (const SchedEvent& e : r.events) {
    if (e.type != EventType::kWakeupNew) continue;
    const std::string& n = r.names[e.task];
    if (n.rfind("x264-frame", 0) == 0 && first_frame < 0) first_frame = e.time;
    if (n.rfind("x264-input", 0) == 0 && first_frame < 0) ++reads_before;
  }
  // Frame 0 is forked in the call of input frame 46 (40 + 6), after that call started the
  // helper reading frame 47: helpers for frames 1..47 come first.
  EXPECT_EQ(reads_before, 47);
  EXPECT_EQ(r.metrics.marks.at("frames").count, 60u);
}

// x264_frame_cond_broadcast() (frame.c:919-933 @8e67a586) wakes every waiter of a frame;
// each re-checks its own target and sleeps again if it is not met. One CPU under rr:
// A waits for 2 and B for 1 (both condition-variable waiters), C for 2 (a plain waiter);
// W publishes 1 at 1 ms and 2 at 2 ms.
TEST(X264, RowBroadcastWakesEveryWaiter) {
  Scenario s = scenario_from_text(
      R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {"x": {"loop": 1, "run": 1}}})", "t");
  s.workload = Workload{};
  Workload& w = s.workload;
  const int32_t c = w.counters.intern("rows");
  gen::add_task(w, gen::one_shot("A", 1, {gen::wait_progress(c, 2, true)}));
  gen::add_task(w, gen::one_shot("B", 1, {gen::wait_progress(c, 1, true)}));
  gen::add_task(w, gen::one_shot("C", 1, {gen::wait_progress(c, 2)}));
  gen::add_task(w, gen::one_shot("W", 1,
                                 {gen::run(kNsPerMs), gen::advance(c), gen::sleep_for(kNsPerMs),
                                  gen::advance(c)}));
  Analyzer analyzer;
  Recorder recorder;
  SinkList sinks;
  sinks.add(&analyzer);
  sinks.add(&recorder);
  SimulationOptions options;
  options.check_invariants = true;
  simulate(s, sinks, options);
  std::map<std::string, std::vector<Time>> woken, blocked;
  for (const SchedEvent& e : recorder.events) {
    if (e.type == EventType::kWakeup) woken[recorder.names[e.task]].push_back(e.time);
    if (e.type == EventType::kBlock) blocked[recorder.names[e.task]].push_back(e.time);
  }
  EXPECT_EQ(woken["A"], (std::vector<Time>{kNsPerMs, 2 * kNsPerMs}));  // woken at 1 too
  EXPECT_EQ(blocked["A"], (std::vector<Time>{0, kNsPerMs}));           // and slept again
  EXPECT_EQ(woken["B"], (std::vector<Time>{kNsPerMs}));
  EXPECT_EQ(woken["C"], (std::vector<Time>{2 * kNsPerMs}));  // a plain wait: only at 2
}

// The lookahead's share per preset as the structure derived from x264 @8e67a586 says, on
// 2 frames of 4 rows (16x64) at 2 threads: the main thread reads frame 0, and builds the
// lowres planes and AQ of both frames (2 x lowres share); the lookahead thread decides 2
// mini-GOPs of one frame (the I frame, then a P: only 2 frames, so no B) at 2 x decision
// share; ultrafast with --qp needs neither (its lookahead thread, there with the sync
// lookahead at 2 threads, does nothing; the main thread only its serial work). Shares (kPresets):
// medium 2 % + 8 %, veryslow 2 % + 8 %, veryfast 2 % + 3 %; a frame at 16x64 is 4/1584 of a 4CIF
// frame.
TEST(X264, LookaheadSharePerPresetOnTwoFramesOfFourRows) {
  struct Case {
    const char* preset;
    const char* rc;
    double fps;
    double lowres, decision;
  };
  for (const Case c :
       {Case{"medium", "abr", 20.01, 0.02, 0.08}, Case{"veryslow", "crf", 1.90, 0.02, 0.08},
        Case{"veryfast", "crf", 60.0, 0.02, 0.03}, Case{"ultrafast", "cqp", 130.76, 0, 0}}) {
    const RunOutput r = run_text(
        x264_scenario(fmt::format(R"("preset": "{}", "ratecontrol": "{}", "threads": 2, "frames": 2,
                       "width": 16, "height": 64, "jitter": 0)",
                                  c.preset, c.rc),
                      2));
    const double frame_ns = 1e9 / c.fps * 4 / 1584;
    const Time main_ns = static_cast<Time>(frame_ns * 0.03);
    const Time input_ns = static_cast<Time>(100'000.0 * 4 / 1584);
    const Time lowres_ns = static_cast<Time>(frame_ns * c.lowres);
    const Time decision_ns = static_cast<Time>(frame_ns * c.decision);
    EXPECT_EQ(r.task("x264").cpu_time_ns, input_ns + 2 * (lowres_ns + main_ns)) << c.preset;
    EXPECT_EQ(r.task("x264-lookahead").cpu_time_ns, 2 * decision_ns) << c.preset;
    EXPECT_EQ(r.metrics.marks.at("frames").count, 2u) << c.preset;
  }
}

TEST(X264, SingleThreadRunsAtTheCalibratedSpeed) {
  struct Case {
    const char* preset;
    double fps;
  };
  for (const Case c : {Case{"ultrafast", 130.76}, Case{"medium", 20.01}, Case{"veryslow", 1.90}}) {
    const RunOutput r = run_text(x264_scenario(
        fmt::format(R"("preset": "{}", "threads": 1, "frames": 20, "jitter": 0)", c.preset)));
    const double fps = 20.0 / (static_cast<double>(r.metrics.duration_ns) / 1e9);
    EXPECT_NEAR(fps, c.fps, c.fps * 1e-4) << c.preset;
  }
}

size_t count_prefix(const std::vector<std::string>& names, const std::string& prefix) {
  size_t n = 0;
  for (const std::string& s : names) n += s.rfind(prefix, 0) == 0;
  return n;
}

TEST(X264, ThreadStylesAndLookahead) {
  const std::string base =
      R"("preset": "medium", "threads": 3, "frames": 12, "width": 64, "height": 64)";
  const RunOutput per_frame = run_text(x264_scenario(base, 2));
  EXPECT_EQ(count_prefix(per_frame.names, "x264-frame"), 12u);     // one thread per frame
  EXPECT_EQ(count_prefix(per_frame.names, "x264-input"), 11u);     // frame 0: the main thread
  EXPECT_EQ(count_prefix(per_frame.names, "x264-lookahead"), 1u);  // auto: threads + 3
  const RunOutput pool = run_text(x264_scenario(base + R"(, "style": "pool")", 2));
  EXPECT_EQ(count_prefix(pool.names, "x264-frame"), 0u);
  EXPECT_EQ(count_prefix(pool.names, "x264-worker"), 3u);
  const RunOutput no_la = run_text(x264_scenario(base + R"(, "sync_lookahead": 0)", 2));
  EXPECT_EQ(count_prefix(no_la.names, "x264-lookahead"), 0u);
  const RunOutput sliced = run_text(x264_scenario(base + R"(, "tune": "zerolatency")", 2));
  EXPECT_EQ(count_prefix(sliced.names, "x264-slice"), 3u);
  EXPECT_EQ(count_prefix(sliced.names, "x264-lookahead"), 0u);
  for (const RunOutput* r : {&per_frame, &pool, &no_la, &sliced})
    EXPECT_EQ(r->metrics.marks.at("frames").count, 12u);
}

// @8e67a586 encoder.c:367-369: 1.5 per CPU, not capped by the height (that came in 2015);
// sliced threads (December 2009): one per CPU, rows / 4 at most.
TEST(X264, AutoThreadsAreOneAndAHalfPerCpu) {
  auto workers = [](const std::string& params) {
    const RunOutput r =
        run_text(x264_scenario(R"("preset": "ultrafast", "frames": 12, )" + params, 4));
    return count_prefix(r.names, "x264-worker") + count_prefix(r.names, "x264-slice");
  };
  EXPECT_EQ(workers(R"("style": "pool")"), 6u);                       // 4 CPUs * 3 / 2
  EXPECT_EQ(workers(R"("style": "pool", "height": 64)"), 6u);         // no cap by rows
  EXPECT_EQ(workers(R"("tune": "zerolatency")"), 4u);                 // sliced: the CPUs
  EXPECT_EQ(workers(R"("tune": "zerolatency", "height": 128)"), 2u);  // 8 rows / 4
}

TEST(X264, BadParametersNameTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("preset": "placebo")", "workload.preset"}, {R"("threads": 0)", "workload.threads"},
      {R"("frames": -1)", "workload.frames"},        {R"("speed": 3)", "workload.speed"},
      {R"("style": "fibers")", "workload.style"},
  };
  for (const auto& [params, key] : cases) {
    try {
      run_text(x264_scenario(params));
      ADD_FAILURE() << params << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << params;
    }
  }
}

// One pair, 10 exchanges on one CPU: the client and its server alternate strictly (the
// connection's first exchange, then the 10); each exchange is counted once.
TEST(Tbench, OnePairPingPongsExactlyTheOperationCount) {
  ScenarioOverrides o;
  o.policy = "rr";
  const RunOutput r = run_text(R"({"machine": {"cpus": 1}, "global": {"duration": 10},
      "workload": {"generator": "tbench", "clients": 1, "ops": 10}})",
                               o);
  EXPECT_TRUE(r.result.all_exited);
  EXPECT_EQ(r.metrics.marks.at("tbench_ops").count, 10u);
  // Between the first and the last exchange the CPU goes client, server, client, ...
  std::vector<std::string> order;
  for (const std::string& line : r.switch_ins()) {
    if (line.find("tbench-client0") != std::string::npos) order.push_back("c");
    if (line.find("tbench-server0") != std::string::npos) order.push_back("s");
  }
  ASSERT_GE(order.size(), 20u);
  for (size_t i = 1; i < order.size(); ++i) EXPECT_NE(order[i], order[i - 1]) << i;
  EXPECT_EQ(std::count(order.begin(), order.end(), "s"), 11);
}

TEST(Hackbench, SendsGroupsTimesFdsSquaredTimesLoopsMessages) {
  for (const char* mode : {"sockets", "pipes"}) {
    const RunOutput r = run_text(fmt::format(
        R"({{"machine": {{"cpus": 2}}, "global": {{"duration": 10}},
            "workload": {{"generator": "hackbench", "groups": 2, "fds": 3, "loops": 4,
                          "mode": "{}", "buffer_bytes": 300}}}})",
        mode));
    EXPECT_TRUE(r.result.all_exited) << mode;
    EXPECT_EQ(r.metrics.marks.at("messages").count, 2u * 3 * 3 * 4) << mode;
    EXPECT_EQ(r.names.size(), 1u + 2 * 2 * 3) << mode;  // main + 2·groups·fds workers
  }
}

TEST(X264, BatchPolicyAppliesToEveryThread) {
  const RunOutput r = run_text(x264_scenario(
      R"("preset": "medium", "threads": 3, "frames": 6, "width": 64, "height": 64, "policy": "SCHED_BATCH")",
      2));
  EXPECT_EQ(r.metrics.marks.at("frames").count, 6u);
  const Scenario s =
      scenario_from_text(x264_scenario(R"("threads": 3, "policy": "SCHED_BATCH")"), "t");
  for (const TaskSpec& t : s.workload.tasks)
    EXPECT_EQ(t.sched.policy, SchedPolicy::kBatch) << t.name;
}

// Every shipped scenario runs under every registered policy with invariants checked, x264
// shortened to 40 frames; those without an endless load (tbench by default) finish.
TEST(Scenarios, EveryShippedScenarioCompletesUnderEveryPolicy) {
  const std::filesystem::path dir = std::filesystem::path(SCHEDLAB_SOURCE_DIR) / "scenarios";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const Scenario probe = load_scenario(entry.path().string());
    const JValue* w = probe.raw.find("workload");
    ScenarioOverrides base;
    bool endless = false;
    // x264 shortened to 40 frames, kbuild to 12 objects, VolanoMark to 5 messages a user;
    // tbench and OLTP run until the
    // duration: 1 s here.
    auto shorten = [&](const JValue& g, const std::string& pointer) {
      const JValue* name = g.find("generator");
      if (name && name->string == "x264") base.sets.emplace_back(pointer + "/frames", "40");
      if (name && name->string == "kbuild") base.sets.emplace_back(pointer + "/objects", "12");
      if (name && name->string == "volanomark") base.sets.emplace_back(pointer + "/messages", "5");
      static const std::set<std::string> kEndless = {"tbench", "oltp",    "messaging", "schbench",
                                                     "pert",   "konsole", "glitch1"};
      if (name && kEndless.count(name->string)) endless = true;
    };
    if (w && w->is_object()) shorten(*w, "/workload");
    if (w && w->is_array())
      for (size_t i = 0; i < w->items.size(); ++i)
        shorten(w->items[i], fmt::format("/workload/{}", i));
    if (endless) base.duration_s = 1;
    for (const PolicyInfo& policy : policy_registry()) {
      ScenarioOverrides o = base;
      o.policy = policy.name;
      const Scenario s = load_scenario(entry.path().string(), o);
      Analyzer analyzer;
      SimulationOptions options;
      options.check_invariants = true;
      const EngineResult result = simulate(s, analyzer, options);
      if (w && !endless) {
        EXPECT_TRUE(result.all_exited) << entry.path() << " under " << policy.name;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// One client, one read-write transaction, one CPU: sysbench 0.4's complex transaction
// (sb_oltp.c @df31f67) makes 21 round trips (BEGIN, 10 point selects, 4 range queries, 5
// writes: index update, non-index update, the extra index update, delete, insert;
// COMMIT), each 20 us of client work, then the server's locks and query work.
// The earlier model (`lwlocks: false`), locks 1 us each, WAL 5 us: BEGIN 1 + 10, point
// 1 + 1 + 50, range 1 + 1 + 200, write 1 + 1 + 5 + 100, COMMIT 5 + 1 + 50 us. All in
// sequence: 420 + 11 + 520 + 808 + 535 + 56 = 2350 us, 19 read/write requests. Read-only
// drops the writes: 16 round trips, 14 requests, 1715 us. simple: one point select, 72 us.
// With 8.4's LWLocks (the default), each LWLock section is its hold plus 2 x 100 ns under
// its mutex (acquire, release): a point select 8 sections of 1 us (9.6 us), a range 12
// (14.4); UPDATE k 7 sections (8.4) and 3 page changes of 1.2 (lookup) + 0.2 + 1 + 5.2
// (the WAL record) = 7.6 each (31.2); UPDATE c and DELETE 6 + 1 change (14.8); the extra
// UPDATE k 30.0 (no XidGenLock); INSERT 2 + 3 changes (25.2); COMMIT 5.2 + 5.2 + 1.2 + 1.2
// (12.8). Locks 96 + 57.6 + 116 + 12.8 = 282.4 us on top of 420 + 10 + 500 + 800 + 500 + 50
// = 2280 us of query work: 2562.4 us; read-only 1680 + 153.6 = 1833.6 us; simple 79.6 us
// (`lock_manager` and `buffer_headers` false). Their defaults add, with bare spinlock
// sections of 100 ns (mutex_ns) and a sinval read of 3 of them (SInvalReadLock's mutex
// twice, msgnumLock): 7 new locks (vxid, the table and pkey AccessShare, the table, pkey
// and k RowExclusive, xid) of 1.2 us and LockReleaseAll's 5 partitions of 1.2 us (14.4);
// 44 sinval reads (BEGIN, two per data statement, one per new relation lock: 13.2); a pin
// and an unpin per page read (58 reads) and a dirtying per change (11 changes): 11.6 +
// 3.3. 2562.4 + 42.5 = 2604.9 us. Read-only: 3 locks and 3 partitions (7.2), 31 sinval
// reads (9.3), 50 page reads (10.0): 1860.1 us. simple: its own transaction, vxid, the
// table and pkey locks with their sinval reads (4.5), 3 reads (0.6), the execute's
// sinval read (0.3), the Sync's commit releasing 3 partitions (3.6): 88.6 us.
// A table of 100 rows on 3 heap pages and 1 leaf makes every range query (clamped to rows
// 1-100) read one leaf and three heap pages, whatever ids are drawn.
TEST(Oltp, ATransactionMakesExactlyTheExpectedRoundTrips) {
  // lwlocks, then lock_manager and buffer_headers together.
  for (const auto& [mode, read_only, lwlocks, extras, queries, requests, duration] :
       {std::tuple{"complex", false, false, false, 21u, 19u, 2'350'000},
        std::tuple{"complex", true, false, false, 16u, 14u, 1'715'000},
        std::tuple{"simple", false, false, false, 1u, 1u, 72'000},
        std::tuple{"complex", false, true, false, 21u, 19u, 2'562'400},
        std::tuple{"complex", true, true, false, 16u, 14u, 1'833'600},
        std::tuple{"simple", false, true, false, 1u, 1u, 79'600},
        std::tuple{"complex", false, true, true, 21u, 19u, 2'604'900},
        std::tuple{"complex", true, true, true, 16u, 14u, 1'860'100},
        std::tuple{"simple", false, true, true, 1u, 1u, 88'600}}) {
    const RunOutput r = run_text(fmt::format(R"({{"machine": {{"cpus": 1}}, "workload": {{
        "generator": "oltp", "clients": 1, "transactions": 1, "mode": "{}", "read_only": {},
        "lwlocks": {}, "lock_manager": {}, "buffer_headers": {}, "table_size": 100,
        "heap_pages": 3, "leaf_pages": 1}}}})",
                                             mode, read_only, lwlocks, extras, extras));
    EXPECT_EQ(r.metrics.marks.at("queries").count, queries) << mode;
    EXPECT_EQ(r.metrics.marks.at("read_write_requests").count, requests) << mode;
    EXPECT_EQ(r.metrics.marks.at("transactions").count, 1u);
    EXPECT_EQ(r.metrics.duration_ns, duration)
        << mode << " read_only " << read_only << " lwlocks " << lwlocks << " extras " << extras;
  }
}

// mysql with InnoDB 5.1's global mutexes (oltp_innodb.cpp), one client on one CPU, each
// mutex held 1 us; a mini-transaction's commit is log_sys 1 + buf_pool 1 inside = 2 us.
// BEGIN 10. The first point select starts the transaction and its read view (kernel x 2):
// 52, the other nine 50 each (adaptive-hash hits). A range: 4 estimate fetches and a next
// leaf, 5 + 200. UPDATE k: kernel 2, undo page 1 + 2 mtrs, kernel + mtr twice: 13, the
// first write's undo assignment rseg 1 + mtr 2: 16 + 100. UPDATE c: 2 + 5 + 100. The
// second UPDATE k: 113. DELETE: 2 + 5 + 1 + 2 + 100. INSERT: autoinc 1, kernel 3, 5,
// kernel 1 + mtr: 12 + 100. COMMIT: kernel 1, rseg over buf_pool 3, kernel 2 and 1 us of
// its own: 6, its mtr 2, kernel 1, the log write 5 (wal_hold_ns), the flush 5
// (wal_flush_ns), log_sys 1, kernel 1: 22 + 50. Server 1962 + client 21 x 20: 2382 us.
// Read-only: 10 + 502 + 820 + a COMMIT of kernel x 3 (53), client 320: 1705. simple: the
// point select 52, its own commit 3, client 20: 75 (these with `innodb_search_latch`
// false). btr_search_latch (the default) adds to each point select an S of 2 us with
// 100 ns under the rw-lock's mutex at lock and unlock (2.2 us), and to each of the 11
// leaf changes (UPDATE k 3, UPDATE c 1, the second UPDATE k 3, DELETE 2, INSERT 2) an X
// of 1 us (1.2): 2382 + 22 + 13.2 = 2417.2 us, read-only 1727, simple 77.2.
// innodb_latches false: the spinlock model's 2350, 1715 and 72 of the test above.
TEST(Oltp, AMysqlTransactionTakesInnodbsGlobalMutexesAsTheSourceDoes) {
  for (const auto& [mode, read_only, latches, search, duration] :
       {std::tuple{"complex", false, true, false, 2'382'000},
        std::tuple{"complex", true, true, false, 1'705'000},
        std::tuple{"simple", false, true, false, 75'000},
        std::tuple{"complex", false, true, true, 2'417'200},
        std::tuple{"complex", true, true, true, 1'727'000},
        std::tuple{"simple", false, true, true, 77'200},
        std::tuple{"complex", false, false, true, 2'350'000},
        std::tuple{"complex", true, false, true, 1'715'000},
        std::tuple{"simple", false, false, true, 72'000}}) {
    const RunOutput r = run_text(fmt::format(R"({{"machine": {{"cpus": 1}}, "workload": {{
        "generator": "oltp", "variant": "mysql", "clients": 1, "transactions": 1,
        "mode": "{}", "read_only": {}, "innodb_latches": {}, "innodb_search_latch": {}}}}})",
                                             mode, read_only, latches, search));
    EXPECT_EQ(r.metrics.marks.at("transactions").count, 1u);
    EXPECT_EQ(r.metrics.duration_ns, duration)
        << mode << " read_only " << read_only << " latches " << latches << " search " << search;
  }
}

// btr_search_latch in a complex read-write transaction (oltp_innodb.cpp): S over each of
// the 10 point selects' hash lookups, then X on each leaf change of the writes (UPDATE k:
// the clustered record, k's old entry delete-marked, its new entry; UPDATE c: the
// clustered record; the second UPDATE k: 3; DELETE: the clustered record and k's entry;
// INSERT: the clustered record and k's new entry): S x 10, X x 11, each lock released
// before the next and each under the rw-lock's mutex.
TEST(Oltp, AMysqlTransactionTakesTheSearchLatchSharedToReadAndExclusiveToChange) {
  const Scenario s = scenario_from_text(
      R"({"workload": {"generator": "oltp", "variant": "mysql", "clients": 1}})", "oltp.json");
  const Workload& w = s.workload;
  const int32_t latch = w.innodb_rwlocks.find("oltp.btr_search_latch");
  ASSERT_GE(latch, 0);
  const int32_t mutex = w.innodb_rwlock_mutex.at(static_cast<size_t>(latch));
  EXPECT_EQ(w.spinlocks.names.at(static_cast<size_t>(mutex)), "oltp.btr_search_latch.mutex");
  const auto conn = std::find_if(w.tasks.begin(), w.tasks.end(),
                                 [](const TaskSpec& t) { return t.name == "oltp-conn0"; });
  ASSERT_NE(conn, w.tasks.end());
  std::string got;
  bool held = false, mutex_held = false;
  for (const Step& step : conn->phases.front().steps) {
    if (step.op == Op::kSpinLock && step.object == mutex) mutex_held = true;
    if (step.op != Op::kInnodbRwLock && step.op != Op::kInnodbRwUnlock) continue;
    EXPECT_TRUE(mutex_held);
    mutex_held = false;
    EXPECT_EQ(held, step.op == Op::kInnodbRwUnlock);
    held = step.op == Op::kInnodbRwLock;
    if (held) got += static_cast<LwLockMode>(step.amount) == LwLockMode::kShared ? "S" : "X";
  }
  EXPECT_FALSE(held);
  EXPECT_EQ(got, "SSSSSSSSSSXXXXXXXXXXX");
}

// The lock policies: PostgreSQL's s_lock sleeps, InnoDB spins 20 rounds of 0..5 x 20 ns,
// yields once and waits on the event, futex spins briefly and blocks; mysql defaults to
// innodb, pgsql to pg_spin.
TEST(Oltp, EachVariantWaitsForItsLocksItsOwnWay) {
  auto config = [](const std::string& extra) {
    const Scenario s = scenario_from_text(
        R"({"workload": {"generator": "oltp", "clients": 2)" + extra + "}}", "oltp.json");
    return s.workload.spin_configs.at(0);
  };
  const SpinLockConfig pg = config("");
  EXPECT_EQ(pg.fallback, SpinFallback::kSleep);
  EXPECT_EQ(pg.sleep_min_ns, 1'000'000);
  EXPECT_EQ(pg.yield_rounds, 0);
  const SpinLockConfig innodb = config(R"(, "variant": "mysql")");
  EXPECT_EQ(innodb.fallback, SpinFallback::kEvent);
  EXPECT_EQ(innodb.yield_rounds, 1);
  EXPECT_EQ(innodb.spin_rounds, 20);
  EXPECT_EQ(innodb.round_delay_max, 5);
  EXPECT_EQ(innodb.delay_unit_ns, 20);
  const SpinLockConfig tuned =
      config(R"(, "variant": "mysql", "innodb_sync_spin_loops": 30, "innodb_spin_wait_delay": 6)");
  EXPECT_EQ(tuned.spin_rounds, 30);
  EXPECT_EQ(tuned.round_delay_max, 6);
  const SpinLockConfig futex = config(R"(, "variant": "mysql", "lock_policy": "futex")");
  EXPECT_EQ(futex.fallback, SpinFallback::kBlock);
  EXPECT_EQ(futex.spin_ns, 1'000);
  EXPECT_THROW(config(R"(, "variant": "oracle")"), InputError);
}

// mysql: each data statement of a complex read-write transaction (10 point selects, 4
// ranges, 5 writes) passes InnoDB's gate of 8 slots: a sem_wait before its locks, a
// sem_post after them and before the reply. The 15 statements up to and including the
// first write may sleep 10 ms once at a full gate (no row locks yet); the 4 after it may
// not. BEGIN and COMMIT do not pass it. innodb_thread_concurrency 0 and pgsql: no gate.
TEST(Oltp, MysqlStatementsPassInnodbsThreadConcurrencyGate) {
  auto load = [](const std::string& extra) {
    return scenario_from_text(R"({"workload": {"generator": "oltp", "clients": 2)" + extra + "}}",
                              "oltp.json");
  };
  const Scenario s = load(R"(, "variant": "mysql")");
  const int32_t gate = s.workload.semaphores.find("oltp.innodb_concurrency");
  ASSERT_GE(gate, 0);
  EXPECT_EQ(s.workload.semaphore_initial.at(static_cast<size_t>(gate)), 8);
  const auto conn = std::find_if(s.workload.tasks.begin(), s.workload.tasks.end(),
                                 [](const TaskSpec& t) { return t.name == "oltp-conn0"; });
  ASSERT_NE(conn, s.workload.tasks.end());
  int waits = 0, sleeping = 0, posts = 0;
  bool inside = false;
  for (const Step& step : conn->phases.front().steps) {
    if (step.object != gate || (step.op != Op::kSemWait && step.op != Op::kSemPost)) {
      // The reply goes out after the gate is left.
      if (step.op == Op::kSemPost) {
        EXPECT_FALSE(inside);
      }
      continue;
    }
    if (step.op == Op::kSemWait) {
      EXPECT_FALSE(inside);
      inside = true;
      ++waits;
      if (step.duration_ns == 10'000'000) ++sleeping;
      if (step.duration_ns != 0 && step.duration_ns != 10'000'000) ADD_FAILURE();
      if (step.duration_ns == 0) {
        EXPECT_EQ(sleeping, 15) << "a no-sleep entry before the write";
      }
    } else {
      EXPECT_TRUE(inside);
      inside = false;
      ++posts;
    }
  }
  EXPECT_EQ(waits, 19);
  EXPECT_EQ(sleeping, 15);
  EXPECT_EQ(posts, 19);
  EXPECT_LT(load(R"(, "variant": "mysql", "innodb_thread_concurrency": 0)")
                .workload.semaphores.find("oltp.innodb_concurrency"),
            0);
  EXPECT_LT(load("").workload.semaphores.find("oltp.innodb_concurrency"), 0);
}

// H holds spinlock L for 5 ms of CPU on one CPU under rr (1 ms slices); W wants L. H is
// preempted at 1, 3 and 5 ms (its slices end at the ticks after 1 ms of running), and
// each time W runs, finds L held by a holder that is off its CPU: 3 counts, once per
// preemption. On two CPUs H is never preempted: 0.
TEST(Oltp, PreemptedLockHoldersAreCountedOncePerEpisode) {
  const std::string load = R"({"machine": {"cpus": CPUS, "hz": 1000}, "tasks": {
      "H": {"loop": 1, "spin_lock": "L", "run": 5000, "spin_unlock": "L"},
      "W": {"loop": 1, "spin_lock": "L", "run": 100, "spin_unlock": "L"}}})";
  auto run = [&](int cpus) {
    std::string text = load;
    text.replace(text.find("CPUS"), 4, std::to_string(cpus));
    ScenarioOverrides o;
    o.policy = "rr";
    o.params = {{"slice_ns", "1000000"}};
    return run_text(text, o);
  };
  const RunOutput one = run(1);
  EXPECT_EQ(one.metrics.lock_holder_preemptions, 3u);
  std::vector<Time> at;
  for (const SchedEvent& e : one.events)
    if (e.type == EventType::kHolderPreempted) at.push_back(e.time);
  EXPECT_EQ(at, (std::vector<Time>{1'000'000, 3'000'000, 5'000'000}));
  EXPECT_EQ(run(2).metrics.lock_holder_preemptions, 0u);
}

// The engine bug these loads found: a spinner that took a lock freed while it was off its
// CPU stayed listed as a spinner, and took the lock back at its own unlock. With InnoDB
// locks and 64 clients on a Q9300 that deadlocked at 1.56 s; now it runs, invariants on.
TEST(Oltp, InnodbLocksUnderHeavyContentionNeverDeadlock) {
  ScenarioOverrides o;
  o.policy = "cfs-2.6.32";
  o.duration_s = 2;
  const RunOutput r = run_text(R"({"machine": {"cpus": 4, "hz": 1000,
      "topology": {"llc": [[0, 1], [2, 3]]}, "context_switch_ns": 2000,
      "migration_cost_ns": 100000, "shared_cache_migration_cost_ns": 5000},
      "workload": {"generator": "oltp", "variant": "mysql", "clients": 64}})",
                               o);
  EXPECT_GT(r.metrics.marks.at("transactions").count, 0u);
  EXPECT_GT(r.metrics.lock_holder_preemptions, 0u);
}

// make -j2 of 4 objects on 2 CPUs, compile 100 ms (no spread), driver 5 ms, as 20 ms,
// link 50 ms: objects 0 and 1 build in 0-125 ms (driver 0-5, cc1 5-105, as 105-125),
// objects 2 and 3 take the freed slots in 125-250 ms, then ld runs 250-300 ms. Never more
// than 2 compiles at once, and the link only after the last object.
TEST(Kbuild, MakeJ2KeepsTwoJobsRunningAndLinksLast) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 2}, "workload": {
      "generator": "kbuild", "jobs": 2, "objects": 4, "compile_ms": 100, "sigma_percent": 0,
      "link_ns": 50000000}})");
  EXPECT_EQ(r.metrics.duration_ns, 300'000'000);
  EXPECT_EQ(r.metrics.marks.at("objects").count, 4u);
  int running = 0, most = 0;
  Time last_object = 0, link_start = -1;
  for (const SchedEvent& e : r.events) {
    if (e.task == kNoTask) continue;  // a CPU's switch to idle
    const std::string& who = r.names[static_cast<size_t>(e.task)];
    if (e.type == EventType::kWakeupNew && who.rfind("gcc-", 0) == 0)
      most = std::max(most, ++running);
    if (e.type == EventType::kExit && who.rfind("gcc-", 0) == 0) {
      --running;
      last_object = e.time;
    }
    if (e.type == EventType::kWakeupNew && who.rfind("ld", 0) == 0) link_start = e.time;
  }
  EXPECT_EQ(most, 2);
  EXPECT_EQ(last_object, 250'000'000);
  EXPECT_EQ(link_start, 250'000'000);
}

// 2 senders, 3 receivers, 4 messages per pair in batches of 2: 24 messages handled, and
// every task ends (acknowledgements balance the queues).
TEST(Messaging, EverySenderReachesEveryReceiver) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 2}, "workload": {
      "generator": "messaging", "senders": 2, "receivers": 3, "messages": 4, "batch": 2}})");
  EXPECT_EQ(r.metrics.marks.at("messages").count, 24u);
  EXPECT_TRUE(r.result.all_exited);
}

// One message thread and 2 workers on 2 CPUs, 3 rounds of 1 ms work and 5 ms sleep:
// each round both workers wake at once (latency 0 on idle CPUs), work 0-1 ms, and the
// message thread sleeps 1-6 ms: rounds at 0, 6 and 12 ms, done at 18 ms; 6 requests.
TEST(Schbench, MessageThreadsWakeTheirWorkersEachRound) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 2}, "workload": {
      "generator": "schbench", "message_threads": 1, "workers": 2, "rounds": 3,
      "cpu_ns": 1000000, "sleep_ns": 5000000}})");
  EXPECT_EQ(r.metrics.marks.at("requests").count, 6u);
  EXPECT_EQ(r.metrics.duration_ns, 18'000'000);
  // Its start, then rounds 2 and 3 (round 1's message is posted before it first waits).
  EXPECT_EQ(r.task("schbench-worker0-1").wakeup_latency.count(), 3u);
}

// pert's figure is a task's preempted gaps: two hogs on one CPU under rr with 10 ms
// slices run A 0-10, B 10-20, A 20-30, B 30-40, A 40-50: A waited 10-20 and 30-40 after
// being preempted (B's first wait, before it ever ran, is not such a gap).
TEST(Desktop, PertGapsAreTheTimesATaskWasPreempted) {
  ScenarioOverrides o;
  o.policy = "rr";
  o.duration_s = 0.05;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "workload": [
      {"generator": "pert", "name": "A"}, {"generator": "pert", "name": "B"}]})",
                               o);
  EXPECT_EQ(r.task("A").preempted_gaps, 2u);
  EXPECT_EQ(r.task("A").preempted_gap_total_ns, 20'000'000);
  EXPECT_EQ(r.task("A").preempted_gap_max_ns, 10'000'000);
  EXPECT_EQ(r.task("B").preempted_gaps, 2u);  // 20-30 and 40-50
}

// konsole alone on one CPU: 3 round trips of a 1 ms burst, the first two to X (1 ms
// each), the third to the daemon (2 ms): ready at 1 + 1 + 1 + 1 + 1 + 2 = 7 ms.
TEST(Desktop, KonsoleIsReadyAfterItsBurstsAndRoundTrips) {
  ScenarioOverrides o;
  o.duration_s = 0.02;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1}, "workload": {"generator": "konsole",
      "round_trips": 3, "daemon_every": 3, "burst_ns": 1000000, "x_ns": 1000000,
      "daemon_ns": 2000000}})",
                               o);
  EXPECT_EQ(r.metrics.marks.at("konsole_ready").first_ns, 7'000'000);
}

// glitch1: alone, glxgears draws 1500 frames a second (0.667 ms each); with one xterm in
// jump mode every copy X serves carries `batch` lines, in line mode one (under
// cfs-2.6.32 with X at nice -20, so that X serves every request at once).
TEST(Desktop, Glitch1BatchesLinesPerRedrawAsParameterised) {
  ScenarioOverrides o;
  o.duration_s = 1;
  o.policy = "cfs-2.6.32";
  const RunOutput alone = run_text(R"({"machine": {"cpus": 1}, "workload": {
      "generator": "glitch1", "xterms": 0}})",
                                   o);
  EXPECT_EQ(alone.metrics.marks.at("gears_frames").count,
            1499u);  // the 1500th ends at 1 s + 0.5 ns
  for (const auto& [mode, per] : {std::pair{"jump", 8u}, std::pair{"line", 1u}}) {
    const RunOutput r = run_text(fmt::format(R"({{"machine": {{"cpus": 1}}, "workload": {{
        "generator": "glitch1", "xterms": 1, "scroll": "{}", "batch": 8, "x_nice": -20}}}})",
                                             mode),
                                 o);
    const uint64_t lines = r.metrics.marks.at("lines").count;
    const uint64_t redraws = r.metrics.marks.at("redraws").count;
    EXPECT_GT(lines, 100u) << mode;
    EXPECT_EQ(lines % per, 0u) << mode;
    EXPECT_LE(redraws, lines / per) << mode;      // every redraw was requested
    EXPECT_GE(redraws + 2, lines / per) << mode;  // and X keeps up
  }
}

// The DRM hardware lock: with glxgears' whole frame in locked sections (6 x 100 us) and
// X serving every copy (2 ms) under the lock, glxgears and X never run at once, so on two
// CPUs their CPU times add up to at most the run's second; without the lock both run
// nearly all the time.
TEST(Desktop, Glitch1GlxgearsCannotDrawWhileXHoldsTheDriLock) {
  ScenarioOverrides o;
  o.duration_s = 1;
  o.policy = "cfs-2.6.32";
  constexpr const char* text = R"({{"machine": {{"cpus": 2}}, "workload": {{
      "generator": "glitch1", "xterms": 1, "scroll": "line", "x_ns": 2000000,
      "frame_ns": 600000, "locked_ns": 100000, "dri_lock": {}}}}})";
  const RunOutput locked = run_text(fmt::format(fmt::runtime(text), "true"), o);
  const RunOutput free = run_text(fmt::format(fmt::runtime(text), "false"), o);
  const auto both = [](const RunOutput& r) {
    return r.task("glxgears").cpu_time_ns + r.task("X").cpu_time_ns;
  };
  EXPECT_LE(both(locked), 1'000'000'000);
  EXPECT_GT(locked.metrics.marks.at("gears_frames").count, 100u);  // it still draws
  EXPECT_GT(locked.metrics.marks.at("redraws").count, 50u);        // and X serves
  EXPECT_GT(both(free), 1'500'000'000);
}

// xterm's CopyWait: before each copy it waits until X has served the previous one, so a
// line-mode xterm is never more than one line ahead of X (and a jump-scroll xterm one
// batch), however slow X is (20 ms a copy here, at nice 19 beside glxgears).
TEST(Desktop, Glitch1XtermWaitsForXToServeItsPreviousCopy) {
  ScenarioOverrides o;
  o.duration_s = 2;
  o.policy = "cfs-2.6.23";
  for (const auto& [mode, per] : {std::pair{"line", 1u}, std::pair{"jump", 8u}}) {
    const RunOutput r = run_text(fmt::format(R"({{"machine": {{"cpus": 1}}, "workload": {{
        "generator": "glitch1", "xterms": 1, "scroll": "{}", "batch": 8, "x_nice": 19,
        "x_ns": 20000000}}}})",
                                             mode),
                                 o);
    const uint64_t lines = r.metrics.marks.at("lines").count;
    const uint64_t redraws = r.metrics.marks.at("redraws").count;
    EXPECT_GT(redraws, 5u) << mode;
    EXPECT_LE(lines, (redraws + 1) * per) << mode;
    EXPECT_GE(lines, redraws * per) << mode;
  }
}

// glxgears' frame as Mesa 6.5.3's r200 driver runs it: three locked sections, the
// unlocked drawing, three more, the frame's mark and sched_yield().
TEST(Desktop, Glitch1FrameTakesTheLockSixTimesAndYields) {
  const Scenario sc = scenario_from_text(
      R"({"machine": {"cpus": 1}, "workload": {"generator": "glitch1", "xterms": 0}})", "w.json");
  const Workload& w = sc.workload;
  ASSERT_EQ(w.tasks.size(), 1u);
  std::vector<Op> ops;
  for (const Step& s : w.tasks[0].phases.front().steps) ops.push_back(s.op);
  const std::vector<Op> locked{Op::kSpinLock, Op::kRun, Op::kSpinUnlock};
  std::vector<Op> expected;
  for (int i = 0; i < 3; ++i) expected.insert(expected.end(), locked.begin(), locked.end());
  expected.push_back(Op::kRun);
  for (int i = 0; i < 3; ++i) expected.insert(expected.end(), locked.begin(), locked.end());
  expected.push_back(Op::kMark);
  expected.push_back(Op::kYield);
  EXPECT_EQ(ops, expected);
  EXPECT_EQ(w.tasks[0].phases.front().steps[9].duration_ns, 666'667 - 6 * 20'000);
}

// VolanoMark, one room of 3 users sending 1 message each, on as many CPUs as tasks: each
// message goes client sender (0-20 us), server receiver (20-30 us), the 2 other members'
// server senders (10 us a copy) and their client receivers (10 us a copy). Each server
// sender gets two copies at 30 us and writes them one after the other (30-40, 40-50), so
// each client receiver reads one at 40-50 and one at 50-60: 6 copies, the first
// delivered at 50 us, the last at 60 us.
TEST(VolanoMark, OneRoomBroadcastsEachMessageToTheOtherMembers) {
  ScenarioOverrides o;
  o.policy = "cfs-2.6.32";
  const RunOutput r = run_text(R"({"machine": {"cpus": 12}, "global": {"duration": -1},
      "workload": {"generator": "volanomark", "rooms": 1, "users": 3, "messages": 1,
                   "yields": 0}})",
                               o);
  EXPECT_EQ(r.metrics.marks.at("messages").count, 6u);
  EXPECT_EQ(r.metrics.marks.at("messages").first_ns, 50'000);
  EXPECT_EQ(r.metrics.duration_ns, 60'000);
  for (int u = 0; u < 3; ++u) {
    EXPECT_EQ(r.task(fmt::format("vm-r0u{}-crecv", u)).cpu_time_ns, 20'000) << u;
    EXPECT_EQ(r.task(fmt::format("vm-r0u{}-srecv", u)).cpu_time_ns, 10'000) << u;
    EXPECT_EQ(r.task(fmt::format("vm-r0u{}-ssend", u)).cpu_time_ns, 20'000) << u;
  }
  // Four threads per connection; each server sender yields `yields` times per copy.
  const Scenario s = scenario_from_text(R"({"machine": {"cpus": 2}, "workload": {
      "generator": "volanomark", "rooms": 2, "users": 4}})",
                                        "v.json");
  EXPECT_EQ(s.workload.tasks.size(), 2u * 4u * 4u);
  size_t yields = 0;
  for (const TaskSpec& t : s.workload.tasks)
    for (const Step& step : t.phases.front().steps) yields += step.op == Op::kYield;
  EXPECT_EQ(yields, 2u * 4u * 2u);  // two in each of the 8 server senders' loop
  // A server receiver posts one copy to each other member's server sender, none to its own.
  const auto receiver = std::find_if(s.workload.tasks.begin(), s.workload.tasks.end(),
                                     [](const TaskSpec& t) { return t.name == "vm-r1u2-srecv"; });
  ASSERT_NE(receiver, s.workload.tasks.end());
  std::vector<std::string> posted;
  for (const Step& step : receiver->phases.front().steps)
    if (step.op == Op::kSemPost) posted.push_back(s.workload.semaphores.names[step.object]);
  EXPECT_EQ(posted, (std::vector<std::string>{"vm.r1u0.out", "vm.r1u1.out", "vm.r1u3.out"}));
  EXPECT_EQ(r.task("vm-r0u0-csend").cpu_time_ns, 20'000);
}

// mplayer alone: a 1 s movie at 25 fps is 50 audio periods of 20 ms; each takes 0.5 ms
// to decode, so the card never runs dry: the last period is fed at 980 ms and has played
// at 1000 ms, and the drain waits one more period: movie_done at 1020 ms, 25 frames.
// With 25 ms of decoding per 20 ms period the card runs dry every period and the clock
// slips: 50 x 25 ms, then the 20 ms drain: 1270 ms.
TEST(Desktop, MediaPlayerTakesTheMovieLengthUnlessTheCardRunsDry) {
  ScenarioOverrides o;
  o.duration_s = 2;
  constexpr const char* text =
      R"({{"machine": {{"cpus": 2}}, "workload": {{"generator": "mediaplayer",
      "movie_s": 1, "songs": 0, "audio_ns": {}}}}})";
  const RunOutput on_time = run_text(fmt::format(fmt::runtime(text), 500000), o);
  EXPECT_EQ(on_time.metrics.marks.at("movie_done").first_ns, 1'020'000'000);
  EXPECT_EQ(on_time.metrics.marks.at("frames").count, 25u);
  const RunOutput dry = run_text(fmt::format(fmt::runtime(text), 25000000), o);
  EXPECT_EQ(dry.metrics.marks.at("movie_done").first_ns, 1'270'000'000);
  EXPECT_EQ(dry.metrics.marks.at("frames").count, 25u);
}

// Amarok 2.2.0's scan of 5 tracks in directories of 2 (2, 2, 1) on 4 CPUs (nothing waits
// for a CPU), the default costs, by hand. The scanner writes its 3 <folder> elements at
// 100, 200 and 300 us (the walk), <itemcount> at 300, then per track 2 ms asleep and 3 ms
// of CPU: tracks at 5.3, 10.3 | 15.3, 20.3 | 25.3 ms, each directory's <compilation> right
// after its last track, </scanner> at 25.3 ms. The GUI thread spends 50 us on each of the
// 13 elements (done at 0.15, 0.25, 0.35, 0.4, 5.35, 10.35, 10.4, 15.35, 20.35, 20.4,
// 25.35, 25.4, 25.45 ms). The parser: each folder 100 us parsed + a SELECT and an INSERT
// (2 x 300): done at 0.85, 1.55, 2.25 ms, the count at 2.35; directory 0's elements at
// 5.45, 10.45, 10.55. Directory 1's first track at 15.45, then directory 0 written: 4
// statements (1.2 ms) and per track its listing (0.2) and 3 statements (0.9): 18.85; its
// second track at 20.45, its compilation 20.55. Directory 2's track at 25.45, directory 1
// written by 28.85, its compilation 28.95; </scanner> 29.05, directory 2 written (1.2 + 1.1)
// 31.35, the copy of 5 tracks (5 x 20 us) 31.45 ms: the collection is loaded.
TEST(Desktop, AmarokScansItsCollectionAsAmarok220Does) {
  ScenarioOverrides o;
  o.duration_s = 1;
  const RunOutput r = run_text(R"({"machine": {"cpus": 4}, "workload": {
      "generator": "mediaplayer", "movie_s": 1, "songs": 5, "songs_per_dir": 2}})",
                               o);
  EXPECT_EQ(r.metrics.marks.at("songs").count, 5u);
  EXPECT_EQ(r.metrics.marks.at("collection_loaded").first_ns, 31'450'000);
  EXPECT_EQ(r.task("amarok").cpu_time_ns, 13 * 50'000);
  EXPECT_EQ(r.task("amarok.scanner").cpu_time_ns, 300'000 + 5 * 3'000'000);
  // 13 elements parsed, 3 folders' statements, 3 directories' and 5 tracks' writes, the copy.
  EXPECT_EQ(r.task("amarok.parser").cpu_time_ns,
            13 * 100'000 + 3 * 600'000 + 3 * 1'200'000 + 5 * 1'100'000 + 100'000);
}

// A full pipe blocks the scanner. One track, a GUI thread taking 1 ms per element: with
// room for 160 elements the scanner writes <folder> and <itemcount> at 0.1 ms and its
// track 5 ms later; with room for one, <itemcount> waits until the GUI has read the
// folder (1.1 ms), so the track and everything after it come 1 ms later.
TEST(Desktop, AmaroksScannerBlocksOnAFullPipe) {
  ScenarioOverrides o;
  o.duration_s = 1;
  auto first_song = [&](int pipe_lines) {
    const RunOutput r = run_text(fmt::format(R"({{"machine": {{"cpus": 4}}, "workload": {{
        "generator": "mediaplayer", "movie_s": 1, "songs": 1, "gui_line_ns": 1000000,
        "pipe_lines": {}}}}})",
                                             pipe_lines),
                                 o);
    return r.metrics.marks.at("collection_loaded").first_ns;
  };
  EXPECT_EQ(first_song(1) - first_song(160), 1'000'000);
}

// The registry: every generator once, in order, and each runs from its defaults alone.
TEST(Generators, RegistryHoldsEveryGeneratorAndEachRunsOnItsDefaults) {
  EXPECT_EQ(generator_names(),
            (Lines{"x264", "tbench", "hackbench", "oltp", "kbuild", "messaging", "volanomark",
                   "schbench", "pert", "konsole", "glitch1", "mediaplayer"}));
  for (const GeneratorInfo& g : generator_registry()) {
    EXPECT_FALSE(g.description.empty()) << g.name;
    EXPECT_FALSE(g.params.empty()) << g.name;
    const Scenario s = scenario_from_text(
        fmt::format(R"({{"machine": {{"cpus": 2}}, "workload": {{"generator": "{}"}}}})", g.name),
        "t.json");
    EXPECT_FALSE(s.workload.tasks.empty()) << g.name;
  }
}

// The listing names every generator and every parameter with its default; one block by hand.
TEST(Generators, ListingNamesEveryGeneratorAndParameterWithItsDefault) {
  const std::string listing = "\n" + format_generator_list();
  for (const GeneratorInfo& g : generator_registry()) {
    EXPECT_NE(listing.find(fmt::format("\n{:<14} {}\n", g.name, g.description)), std::string::npos)
        << g.name;
    for (const params::Row& p : g.params)
      EXPECT_NE(listing.find(fmt::format("    {:<34} {:>12}  ", p.name, p.value)),
                std::string::npos)
          << g.name << "." << p.name;
  }
  EXPECT_NE(listing.find(
                "pert           a CPU hog noting the gaps when it was descheduled\n"
                "    cpus                                        all  CpuList  the CPUs it may run "
                "on; all: not pinned [E4: pinned to CPU 0]\n"
                "    nice                                          0  int      its nice level "
                "[schedlab]\n"
                "    name                                       pert  string   the task's name "
                "[schedlab]\n"),
            std::string::npos)
      << listing;
  // Defaults as declared, automatic ones by their word.
  std::map<std::string, std::string> x264;
  for (const params::Row& p : generator_registry().front().params) x264[p.name] = p.value;
  EXPECT_EQ(x264.at("preset"), "medium");
  EXPECT_EQ(x264.at("threads"), "auto");
  EXPECT_EQ(x264.at("sync_lookahead"), "auto");
  EXPECT_EQ(x264.at("frames"), "600");
  EXPECT_EQ(x264.at("jitter"), "0.1");
  EXPECT_EQ(x264.at("policy"), "SCHED_OTHER");
}

Scenario generated(const std::string& workload, int cpus = 2) {
  return scenario_from_text(
      fmt::format(R"({{"machine": {{"cpus": {}}}, "workload": {}}})", cpus, workload), "w.json");
}

std::string input_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Keys are read in file order and a repeated key's last value wins; an unknown key lists
// the generator's parameters; CPU lists are checked against the machine.
TEST(Generators, ParametersAreReadInFileOrderAndCheckedByTheirDeclaration) {
  // 3 clients, 3 servers, tbench and tbench_srv.
  EXPECT_EQ(
      generated(R"({"generator": "tbench", "clients": 1, "clients": 3})").workload.tasks.size(),
      8u);
  EXPECT_EQ(input_error([] { generated(R"({"generator": "schbench", "wrokers": 2})"); }),
            "w.json: workload.wrokers: unknown parameter for generator 'schbench' (it has: "
            "message_threads, workers, rounds, sleep_ns, cpu_ns, name)");
  EXPECT_EQ(
      input_error([] { generated(R"({"generator": "volanomark", "rooms": 1000, "users": 300})"); }),
      "w.json: workload.users: 1000 rooms of 300 users make 1200000 tasks, more than "
      "1000000");
  EXPECT_EQ(input_error([] { generated(R"({"generator": "glitch1", "locked_ns": 200000})"); }),
            "w.json: workload.locked_ns: 6 locked sections of 200000 ns exceed the frame's "
            "666667 ns");
  EXPECT_EQ(input_error([] {
              generated(R"([{"generator": "pert"}, {"generator": "konsole",
                                           "x_cpus": [1, 2]}])");
            }),
            "w.json: workload[1].x_cpus: CPU 2 is outside the machine's 2 CPUs");
  EXPECT_EQ(input_error([] { generated(R"({"generator": "tbench", "server_ns": -1})"); }),
            "w.json: workload.server_ns: negative duration -1");
  // A check across parameters runs after parsing: zero rounds, the frame and audio periods.
  EXPECT_EQ(input_error([] { generated(R"({"generator": "schbench", "rounds": 0})"); }),
            "w.json: workload.rounds: must be positive, or -1 for no end");
  EXPECT_EQ(input_error([] { generated(R"({"generator": "mediaplayer", "audio_period_ns": 0})"); }),
            "w.json: workload.audio_period_ns: must be positive");
  // amarok's final copy, one copy_ns per track, would overflow a duration.
  EXPECT_EQ(input_error([] {
              generated(R"({"generator": "mediaplayer", "songs": 1000, "copy_ns": 1125899906843})");
            }),
            "w.json: workload.copy_ns: 1000 tracks of 1125899906843 ns exceed the longest "
            "duration (1125899906842624 ns)");
  // "auto" is the default, written out.
  const Scenario written = generated(R"({"generator": "x264", "bframes": "auto", "ref": "auto",
      "threads": "auto", "frames": 30})");
  const Scenario omitted = generated(R"({"generator": "x264", "frames": 30})");
  ASSERT_EQ(written.workload.tasks.size(), omitted.workload.tasks.size());
  for (size_t i = 0; i < omitted.workload.tasks.size(); ++i)
    EXPECT_EQ(written.workload.tasks[i].name, omitted.workload.tasks[i].name);
  EXPECT_EQ(generated(R"({"generator": "kbuild", "jobs": "auto"})", 3).workload.semaphore_initial,
            generated(R"({"generator": "kbuild", "jobs": 3})", 3).workload.semaphore_initial);
}

// mediaplayer's io_ns and movie_delay_ns (each once divided by zero): the 5-track scan of
// AmarokScansItsCollectionAsAmarok220Does with 1 ms of reading per track instead of 2
// loads at 26.45 ms, 5 ms earlier; mplayer started 5 ms late finishes its 1 s movie at
// 1025 ms.
TEST(Desktop, MediaPlayerReadsItsDelayAndTheScannersReadTime) {
  ScenarioOverrides o;
  o.duration_s = 2;
  const RunOutput r = run_text(R"({"machine": {"cpus": 4}, "workload": {
      "generator": "mediaplayer", "movie_s": 1, "songs": 5, "songs_per_dir": 2,
      "io_ns": 1000000, "movie_delay_ns": 5000000}})",
                               o);
  EXPECT_EQ(r.metrics.marks.at("collection_loaded").first_ns, 26'450'000);
  EXPECT_EQ(r.metrics.marks.at("movie_done").first_ns, 1'025'000'000);
}

}  // namespace
}  // namespace schedlab::test
