// InnoDB 5.0/5.1's mutex wait (SpinFallback::kEvent, engine_program.cpp) on hand-computed
// schedules, and sysbench 0.4's row ids (workload/generators/oltp_keys.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"
#include "scenario_text.h"
#include "util/error.h"
#include "workload/generators/oltp_keys.h"

namespace schedlab::test {
namespace {

std::vector<Time> times_of(const RunOutput& r, const std::string& name, EventType type) {
  const TaskId id = r.task(name).tid;
  std::vector<Time> out;
  for (const SchedEvent& e : r.events)
    if (e.type == type && e.task == id) out.push_back(e.time);
  return out;
}

// An InnoDB waiter whose spin rounds cost nothing (round_delay_max 0), so it yields at
// once, makes its one test-and-set and sleeps on the event.
const char* kFreeSpinWaiter =
    R"({"ref": "L", "fallback": "event", "spin_rounds": 20, "round_delay_max": 0,
        "yield_rounds": 1})";

// H holds L 0-1000 us on CPU 0; W1, W2, W3 want it at 100, 200 and 300 us, each alone on
// its CPU: a free spin, a yield back to itself, one failed test-and-set, asleep on the
// event. At 1000 us H's unlock wakes all three and gives none the lock: W1, woken first,
// takes it (1000-1100); W2 and W3 find it held, yield, fail, sleep again at 1000. W1's
// unlock at 1100 wakes both: W2 takes it, W3 sleeps a third time; W2's unlock at 1200
// wakes W3, which runs 1200-1300. With a hand-off (kBlock) nobody would sleep twice.
TEST(InnodbMutex, UnlockWakesEveryWaiterAndOneWinsTheOthersSleepAgain) {
  const std::string w = kFreeSpinWaiter;
  const RunOutput r = run_text(scenario(4, R"("tasks": {
      "H": {"loop": 1, "spin_lock": "L", "run": 1000, "spin_unlock": "L"},
      "W1": {"loop": 1, "delay": 100, "spin_lock": )" +
                                               w +
                                               R"(, "run": 100, "spin_unlock": "L"},
      "W2": {"loop": 1, "delay": 200, "spin_lock": )" +
                                               w +
                                               R"(, "run": 100, "spin_unlock": "L"},
      "W3": {"loop": 1, "delay": 300, "spin_lock": )" +
                                               w + R"(, "run": 100, "spin_unlock": "L"}}})"));
  EXPECT_EQ(times_of(r, "W1", EventType::kBlock), (std::vector<Time>{100'000}));
  EXPECT_EQ(times_of(r, "W2", EventType::kBlock), (std::vector<Time>{200'000, 1'000'000}));
  EXPECT_EQ(times_of(r, "W3", EventType::kBlock),
            (std::vector<Time>{300'000, 1'000'000, 1'100'000}));
  // Every sleeper is woken by every unlock while it sleeps.
  EXPECT_EQ(times_of(r, "W1", EventType::kWakeup), (std::vector<Time>{1'000'000}));
  EXPECT_EQ(times_of(r, "W2", EventType::kWakeup), (std::vector<Time>{1'000'000, 1'100'000}));
  EXPECT_EQ(times_of(r, "W3", EventType::kWakeup),
            (std::vector<Time>{1'000'000, 1'100'000, 1'200'000}));
  EXPECT_EQ(times_of(r, "W1", EventType::kExit), (std::vector<Time>{1'100'000}));
  EXPECT_EQ(times_of(r, "W2", EventType::kExit), (std::vector<Time>{1'200'000}));
  EXPECT_EQ(times_of(r, "W3", EventType::kExit), (std::vector<Time>{1'300'000}));
  for (const char* name : {"W1", "W2", "W3"}) EXPECT_EQ(r.task(name).cpu_time_ns, 100'000);
}

// W wants L at 900 us while H holds it until 1000 us. W spins 20 rounds of 0..5 units of
// 1 ms, so (unless every draw is 0) far past 1000 us; it sees L free the instant H frees
// it and takes it there, never yielding or sleeping: exit at 1000 + 50 us, CPU 100 us of
// spin and 50 of work.
TEST(InnodbMutex, ASpinnerTakesTheLockTheInstantItIsFreed) {
  const RunOutput r = run_text(scenario(2, R"("tasks": {
      "H": {"loop": 1, "spin_lock": "L", "run": 1000, "spin_unlock": "L"},
      "W": {"loop": 1, "delay": 900, "spin_lock": {"ref": "L", "fallback": "event",
            "spin_rounds": 20, "round_delay_max": 5, "delay_unit_ns": 1000000,
            "yield_rounds": 1}, "run": 50, "spin_unlock": "L"}}})"));
  EXPECT_TRUE(times_of(r, "W", EventType::kBlock).empty());
  EXPECT_EQ(times_of(r, "W", EventType::kExit), (std::vector<Time>{1'050'000}));
  EXPECT_EQ(r.task("W").cpu_time_ns, 150'000);
}

// H holds L 0-10 ms. W (at 100 us) spins 20 rounds of 0..5 units of 1 us: a whole number
// of us, at most 100, then yields, fails once more and sleeps; H's unlock wakes it and it
// takes the free lock without spinning. So W's CPU is that spin plus its 100 us of work.
TEST(InnodbMutex, TheSpinIsTwentyRandomRoundsOfWholeUnits) {
  const RunOutput r = run_text(scenario(2, R"("tasks": {
      "H": {"loop": 1, "spin_lock": "L", "run": 10000, "spin_unlock": "L"},
      "W": {"loop": 1, "delay": 100, "spin_lock": {"ref": "L", "fallback": "event",
            "spin_rounds": 20, "round_delay_max": 5, "delay_unit_ns": 1000,
            "yield_rounds": 1}, "run": 100, "spin_unlock": "L"}}})"));
  const Time spin = r.task("W").cpu_time_ns - 100'000;
  EXPECT_GT(spin, 0);
  EXPECT_LE(spin, 100'000);
  EXPECT_EQ(spin % 1000, 0);
  ASSERT_EQ(times_of(r, "W", EventType::kBlock), (std::vector<Time>{100'000 + spin}));
  EXPECT_EQ(times_of(r, "W", EventType::kExit), (std::vector<Time>{10'100'000}));
}

// A kBlock waiter (B, handed the lock) and an InnoDB one (E) on one lock: the unlock hands
// L to B and wakes E, which finds it held and sleeps again until B's unlock.
TEST(InnodbMutex, ABlockWaiterIsHandedTheLockBeforeWokenEventWaiters) {
  const std::string e = kFreeSpinWaiter;
  const RunOutput r = run_text(scenario(3, R"("tasks": {
      "H": {"loop": 1, "spin_lock": "L", "run": 1000, "spin_unlock": "L"},
      "E": {"loop": 1, "delay": 100, "spin_lock": )" +
                                               e +
                                               R"(, "run": 100, "spin_unlock": "L"},
      "B": {"loop": 1, "delay": 200, "spin_lock": {"ref": "L", "spin_ns": 0,
            "fallback": "block"}, "run": 100, "spin_unlock": "L"}}})"));
  EXPECT_EQ(times_of(r, "B", EventType::kExit), (std::vector<Time>{1'100'000}));
  EXPECT_EQ(times_of(r, "E", EventType::kBlock), (std::vector<Time>{100'000, 1'000'000}));
  EXPECT_EQ(times_of(r, "E", EventType::kExit), (std::vector<Time>{1'200'000}));
}

// InnoDB's thread concurrency gate as a semaphore of one slot (srv_conc_enter_innodb).
// H holds it 0-5 ms. W3 (1.5 ms) queues at once. W1 (1 ms, sleep_first 2 ms) sleeps to
// 3 ms, finds the gate still full and queues behind W3. H's post at 5 ms hands the slot to
// W3 (5.0-5.1), whose post hands it to W1 (5.1-5.2). W2 (2 ms, sleep_first 4 ms) sleeps
// to 6 ms, when the gate is free, and takes it without queueing (6.0-6.1).
TEST(InnodbGate, AWaiterSleepsOnceAndThenQueuesBehindThoseAlreadyQueued) {
  const RunOutput r = run_text(scenario(4, R"("tasks": {
      "H": {"loop": 1, "sem_post0": "G", "sem_wait": "G", "run": 5000, "sem_post1": "G"},
      "W1": {"loop": 1, "delay": 1000, "sem_wait": {"ref": "G", "sleep_first": 2000},
             "run": 100, "sem_post": "G"},
      "W2": {"loop": 1, "delay": 2000, "sem_wait": {"ref": "G", "sleep_first": 4000},
             "run": 100, "sem_post": "G"},
      "W3": {"loop": 1, "delay": 1500, "sem_wait": "G", "run": 100, "sem_post": "G"}}})"));
  EXPECT_EQ(times_of(r, "W1", EventType::kBlock), (std::vector<Time>{1'000'000, 3'000'000}));
  EXPECT_EQ(times_of(r, "W1", EventType::kWakeup), (std::vector<Time>{3'000'000, 5'100'000}));
  EXPECT_EQ(times_of(r, "W1", EventType::kExit), (std::vector<Time>{5'200'000}));
  EXPECT_EQ(times_of(r, "W3", EventType::kWakeup), (std::vector<Time>{5'000'000}));
  EXPECT_EQ(times_of(r, "W3", EventType::kExit), (std::vector<Time>{5'100'000}));
  EXPECT_EQ(times_of(r, "W2", EventType::kBlock), (std::vector<Time>{2'000'000}));
  EXPECT_EQ(times_of(r, "W2", EventType::kWakeup), (std::vector<Time>{6'000'000}));
  EXPECT_EQ(times_of(r, "W2", EventType::kExit), (std::vector<Time>{6'100'000}));
}

// A sleep_first is a duration: negative is refused, naming the key.
TEST(InnodbGate, ANegativeSleepFirstIsRefused) {
  try {
    run_text(scenario(1, R"("tasks": {"W": {"loop": 1, "sem_post": "G",
        "sem_wait": {"ref": "G", "sleep_first": -5}}}})"));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sleep_first"), std::string::npos) << e.what();
  }
}

// rnd_func_uniform, rnd_func_gaussian and rnd_func_special on given raw draws, by hand
// (T = 10000, iter 12, pct 1, res 75: special's range is 10000 x (100 / 25) = 40000, its hot
// ids (r mod 100) + 5000 - 50).
TEST(SysbenchKeys, TheIntegerRulesOnGivenDraws) {
  auto draw = [](const oltp::KeySettings& k, std::vector<uint64_t> raws) {
    size_t i = 0;
    const int64_t id = oltp::draw_key(k, [&] { return raws.at(i++); });
    EXPECT_EQ(i, raws.size()) << "draws used";
    return id;
  };
  oltp::KeySettings k;                  // sysbench 0.4's defaults
  EXPECT_EQ(draw(k, {39'999}), 4950);   // r = 40000, mod 100 = 0
  EXPECT_EQ(draw(k, {10'000}), 4951);   // r = 10001
  EXPECT_EQ(draw(k, {12'345}), 4996);   // r = 12346, mod 100 = 46
  EXPECT_EQ(draw(k, {119'999}), 4950);  // raw mod 40000 = 39999
  // r = 10000 <= T: a fresh 12-draw gaussian; 1..12 sum to 78, 78 / 12 = 6.
  EXPECT_EQ(draw(k, {9'999, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), 6);
  EXPECT_EQ(draw(k, {0, 9'999, 9'999, 9'999, 9'999, 9'999, 9'999, 9'999, 9'999, 9'999, 9'999, 9'999,
                     9'999}),
            10'000);
  oltp::KeySettings g = k;
  g.dist = oltp::KeyDist::kGaussian;  // 11 x 1 + 10000 = 10011, / 12 = 834
  EXPECT_EQ(draw(g, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9'999}), 834);
  oltp::KeySettings u = k;
  u.dist = oltp::KeyDist::kUniform;
  EXPECT_EQ(draw(u, {9'999}), 10'000);
  EXPECT_EQ(draw(u, {10'000}), 1);
  oltp::KeySettings half = k;  // res 50: range 10000 x 2; pct 10: d = 1000, base 4500
  half.res = 50;
  half.pct = 10;
  EXPECT_EQ(draw(half, {10'500}), 5001);  // r = 10501, mod 1000 = 501
  EXPECT_EQ(draw(half, {30'500}), 5001);  // raw mod 20000 = 10500
  oltp::KeySettings none = k;             // pct 0: d is at least 1, every hot draw is T / 2
  none.pct = 0;
  EXPECT_EQ(draw(none, {20'000}), 5000);
  oltp::KeySettings flat = k;  // res 0: range = T, so every draw is gaussian
  flat.res = 0;
  EXPECT_EQ(draw(flat, {39'999, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), 1);
  // get_request_complex's clamp of a range's start, and the pages of rows.
  EXPECT_EQ(oltp::range_start(9'950, 10'000, 100), 9'900);
  EXPECT_EQ(oltp::range_start(9'901, 10'000, 100), 9'900);
  EXPECT_EQ(oltp::range_start(9'900, 10'000, 100), 9'900);
  EXPECT_EQ(oltp::range_start(4'950, 10'000, 100), 4'950);
  EXPECT_EQ(oltp::range_start(50, 120, 100), 20);
  EXPECT_EQ(oltp::range_start(5, 50, 100), 1);
  EXPECT_EQ(oltp::page_of(1, 10'000, 250), 0);
  EXPECT_EQ(oltp::page_of(40, 10'000, 250), 0);
  EXPECT_EQ(oltp::page_of(41, 10'000, 250), 1);
  EXPECT_EQ(oltp::page_of(10'000, 10'000, 250), 249);
  EXPECT_EQ(oltp::page_of(0, 10'000, 250), 0);
  EXPECT_EQ(oltp::page_of(4'950, 10'000, 28), 13);  // 4949 x 28 / 10000 = 13.86
}

// The research's exact mass: 0.75 + 0.25 x P(a 12-draw mean lands in 4950..5049) = 0.762.
// Over 100,000 seeded draws the share is within 0.01 of that (7 standard deviations),
// and the uniform distribution puts about 1 % there.
TEST(SysbenchKeys, SpecialSendsThreeQuartersOfDrawsToTheMiddlePercent) {
  auto share = [](oltp::KeyDist dist) {
    oltp::KeySettings k;
    k.dist = dist;
    Rng rng(12345);
    int hot = 0;
    constexpr int kDraws = 100'000;
    for (int i = 0; i < kDraws; ++i) {
      const int64_t id = oltp::draw_key(k, [&] { return rng.below(oltp::kSbRndBound); });
      EXPECT_GE(id, 1);
      EXPECT_LE(id, 10'000);
      hot += id >= 4950 && id <= 5049;
    }
    return static_cast<double>(hot) / kDraws;
  };
  EXPECT_NEAR(share(oltp::KeyDist::kSpecial), 0.762, 0.01);
  EXPECT_NEAR(share(oltp::KeyDist::kUniform), 0.01, 0.002);
}

// The backend's buffers, in program order, for a pgsql workload.
std::vector<int32_t> backend_buffers(const std::string& extra, int client = 0, uint64_t seed = 1) {
  ScenarioOverrides o;
  o.seed = seed;
  const Scenario sc = scenario_from_text(
      R"({"workload": {"generator": "oltp", "clients": 4, "transactions": 1)" + extra + "}}",
      "oltp.json", o);
  std::vector<int32_t> out;
  const std::string name = "oltp-backend" + std::to_string(client);
  for (const TaskSpec& t : sc.workload.tasks)
    if (t.name == name)
      for (const Step& s : t.phases.front().steps)
        if (s.op == Op::kLwLockAcquire) out.push_back(s.object);
  return out;
}

// The same seed gives the same ids, so the same pages; another seed or another client
// other ones; the ids' stream itself repeats for a seed, client and position.
TEST(SysbenchKeys, TheSameSeedGivesTheSameIds) {
  EXPECT_EQ(backend_buffers(R"(, "dist_type": "uniform")"),
            backend_buffers(R"(, "dist_type": "uniform")"));
  EXPECT_NE(backend_buffers(R"(, "dist_type": "uniform")", 0, 1),
            backend_buffers(R"(, "dist_type": "uniform")", 0, 2));
  EXPECT_NE(backend_buffers(R"(, "dist_type": "uniform")", 0),
            backend_buffers(R"(, "dist_type": "uniform")", 1));
  auto ids = [](uint64_t seed, uint64_t client, uint64_t position) {
    Rng rng = oltp::key_rng(seed, client, position);
    std::vector<int64_t> out;
    for (int i = 0; i < 20; ++i)
      out.push_back(
          oltp::draw_key(oltp::KeySettings{}, [&] { return rng.below(oltp::kSbRndBound); }));
    return out;
  };
  EXPECT_EQ(ids(7, 3, 5), ids(7, 3, 5));
  EXPECT_NE(ids(7, 3, 5), ids(8, 3, 5));
  EXPECT_NE(ids(7, 3, 5), ids(7, 4, 5));
  EXPECT_NE(ids(7, 3, 5), ids(7, 3, 6));
}

// sysbench's extra index update, its delete and its insert share one id: the heap page the
// three change (the first exclusive buffer of each) is the same, for every client.
TEST(SysbenchKeys, TheDeleteAndInsertReuseTheExtraUpdatesRow) {
  const Scenario sc = scenario_from_text(
      R"({"workload": {"generator": "oltp", "clients": 16, "transactions": 1,
          "dist_type": "uniform"}})",
      "oltp.json");
  const Workload& w = sc.workload;
  int checked = 0;
  for (const TaskSpec& t : w.tasks) {
    if (t.name.rfind("oltp-backend", 0) != 0) continue;
    // Per statement (a sem_wait for the request starts each), its first X heap buffer.
    std::vector<int32_t> heap_x;
    bool found = false;
    for (const Step& s : t.phases.front().steps) {
      if (s.op == Op::kSemWait) found = false;
      if (s.op != Op::kLwLockAcquire || found ||
          static_cast<LwLockMode>(s.amount) != LwLockMode::kExclusive)
        continue;
      const std::string& n = w.lwlocks.names[s.object];
      if (n.find(".buffer.heap") == std::string::npos) continue;
      heap_x.push_back(s.object);
      found = true;
    }
    // index update, non-index update, extra index update, delete, insert.
    ASSERT_EQ(heap_x.size(), 5u) << t.name;
    EXPECT_EQ(heap_x[2], heap_x[3]) << t.name;
    EXPECT_EQ(heap_x[3], heap_x[4]) << t.name;
    ++checked;
  }
  EXPECT_EQ(checked, 16);
}

}  // namespace
}  // namespace schedlab::test
