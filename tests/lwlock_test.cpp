// PostgreSQL 8.4's LWLocks (src/sim/lwlock.h) and s_lock's adaptive spins_per_delay
// (engine_program.cpp), on hand-computed schedules.
#include "sim/lwlock.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "harness.h"
#include "scenario_text.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

std::vector<Time> lwlock_blocks(const RunOutput& r, const std::string& name) {
  return r.block_times(name, BlockReason::kLwLock);
}

// LWLockRelease's choice on the state alone: an exclusive holder leaves, the queue is
// S1 S2 X3 S4: S1 and S2 are woken together, not X3 nor S4; releaseOK is then false, so a
// second release before a woken waiter retries wakes nobody.
TEST(LwLock, ReleaseWakesTheSharedRunAtTheHeadAndBlocksFurtherWakeups) {
  LwLockState l;
  ASSERT_TRUE(lwlock_try_acquire(l, 0, LwLockMode::kExclusive, false));
  EXPECT_FALSE(lwlock_try_acquire(l, 1, LwLockMode::kShared, false));
  EXPECT_FALSE(lwlock_try_acquire(l, 2, LwLockMode::kShared, false));
  EXPECT_FALSE(lwlock_try_acquire(l, 3, LwLockMode::kExclusive, false));
  EXPECT_FALSE(lwlock_try_acquire(l, 4, LwLockMode::kShared, false));
  std::vector<TaskId> woken;
  ASSERT_TRUE(lwlock_release(l, 0, woken));
  EXPECT_EQ(woken, (std::vector<TaskId>{1, 2}));
  EXPECT_FALSE(l.release_ok);
  // Someone barges in exclusively and leaves before 1 and 2 have run: nobody is woken.
  ASSERT_TRUE(lwlock_try_acquire(l, 5, LwLockMode::kExclusive, false));
  woken.clear();
  ASSERT_TRUE(lwlock_release(l, 5, woken));
  EXPECT_TRUE(woken.empty());
  // 1 retries (releaseOK again) and gets it shared; its release wakes X3 alone.
  ASSERT_TRUE(lwlock_try_acquire(l, 1, LwLockMode::kShared, true));
  EXPECT_TRUE(l.release_ok);
  ASSERT_TRUE(lwlock_try_acquire(l, 2, LwLockMode::kShared, true));
  woken.clear();
  ASSERT_TRUE(lwlock_release(l, 1, woken));
  EXPECT_TRUE(woken.empty());  // 2 still holds it shared
  ASSERT_TRUE(lwlock_release(l, 2, woken));
  EXPECT_EQ(woken, (std::vector<TaskId>{3}));
  EXPECT_FALSE(lwlock_release(l, 2, woken));  // not held any more
}

// Four tasks on four CPUs, no time under the mutex (so only the LWLock matters): X0 takes
// L exclusive at 0 and holds it 3 ms; S1 (at 1 ms) wants it shared, X3 (1.1 ms) exclusive,
// S2 (1.2 ms) shared: queued S1, X3, S2. At 3 ms X0's release wakes the run of shared
// waiters at the head, S1 alone (X3 follows). S1 holds it 3-4; its release wakes X3
// alone, 4-5; X3's wakes S2, 5-6. Each waiter sleeps while queued: no CPU until woken.
TEST(LwLock, FourTasksWakeInQueueOrderSharedTogetherExclusiveAlone) {
  const RunOutput r = run_text(scenario(4, R"("tasks": {
      "X0": {"loop": 1, "lwlock_acquire": "L", "run": 3000, "lwlock_release": "L"},
      "S1": {"loop": 1, "delay": 1000, "lwlock_acquire": {"ref": "L", "mode": "shared"},
             "run": 1000, "lwlock_release": "L"},
      "X3": {"loop": 1, "delay": 1100, "lwlock_acquire": {"ref": "L", "mode": "exclusive"},
             "run": 1000, "lwlock_release": "L"},
      "S2": {"loop": 1, "delay": 1200, "lwlock_acquire": {"ref": "L", "mode": "shared"},
             "run": 1000, "lwlock_release": "L"}}})"));
  EXPECT_EQ(r.task("S1").cpu_time_ns, 1'000'000);  // asleep while queued: only its run
  EXPECT_EQ(r.task("X3").cpu_time_ns, 1'000'000);
  EXPECT_EQ(r.task("S2").cpu_time_ns, 1'000'000);
  EXPECT_EQ(lwlock_blocks(r, "S1"), (std::vector<Time>{1'000'000}));
  EXPECT_EQ(lwlock_blocks(r, "X3"), (std::vector<Time>{1'100'000}));
  EXPECT_EQ(lwlock_blocks(r, "S2"), (std::vector<Time>{1'200'000}));
  EXPECT_EQ(r.exit_ns("X0"), 3'000'000);
  EXPECT_EQ(r.exit_ns("S1"), 4'000'000);
  EXPECT_EQ(r.exit_ns("X3"), 5'000'000);
  EXPECT_EQ(r.exit_ns("S2"), 6'000'000);
}

// Shared waiters at the head wake together: X0 holds L 0-3 ms; S1, S2 queue (1, 1.1 ms),
// then X3 (1.2 ms). X0's release wakes S1 and S2 at once; both hold it 3-4 and X3, woken
// by the last shared release, holds it 4-5.
TEST(LwLock, SharedWaitersAtTheHeadWakeTogether) {
  const RunOutput r = run_text(scenario(4, R"("tasks": {
      "X0": {"loop": 1, "lwlock_acquire": "L", "run": 3000, "lwlock_release": "L"},
      "S1": {"loop": 1, "delay": 1000, "lwlock_acquire": {"ref": "L", "mode": "shared"},
             "run": 1000, "lwlock_release": "L"},
      "S2": {"loop": 1, "delay": 1100, "lwlock_acquire": {"ref": "L", "mode": "shared"},
             "run": 1000, "lwlock_release": "L"},
      "X3": {"loop": 1, "delay": 1200, "lwlock_acquire": "L", "run": 1000,
             "lwlock_release": "L"}}})"));
  EXPECT_EQ(r.exit_ns("S1"), 4'000'000);
  EXPECT_EQ(r.exit_ns("S2"), 4'000'000);
  EXPECT_EQ(r.exit_ns("X3"), 5'000'000);
  EXPECT_EQ(r.task("X3").cpu_time_ns, 1'000'000);
}

// s_lock's spins_per_delay (8.4 s_lock.c): B's starts at 100 rounds, here 1 us each. A
// holds L 0-50 us, 1000-1250 us and 3000-3500 us; B wants it at 10, 1010 and 3010 us.
//   1st: B spins 10-50 and gets L without sleeping: 100 -> 200.
//   2nd: B spins 200 us (1010-1210), sleeps 1 ms, gets L at 2210: it slept, 200 -> 199.
//   3rd: B spins 199 us (3010-3209), sleeps 1 ms, gets L at 4209: 199 -> 198.
// B's CPU: 40 + 200 + 199 us of spinning and 3 x 10 us of work = 469 us (a fixed 100-round
// spin would give 270, no -1 after a sleep 470).
TEST(SpinsPerDelay, GrowsBy100WithoutASleepAndShrinksBy1AfterOne) {
  const RunOutput r = run_text(scenario(2, R"("tasks": {
      "A": {"loop": 1, "phases": {
        "p1": {"spin_lock": "L", "run": 50, "spin_unlock": "L", "sleep": 950},
        "p2": {"spin_lock": "L", "run": 250, "spin_unlock": "L", "sleep": 1750},
        "p3": {"spin_lock": "L", "run": 500, "spin_unlock": "L"}}},
      "B": {"loop": 1, "delay": 10, "phases": {
        "p1": {"spin_lock": {"ref": "L", "tas_round_ns": 1000, "sleep_min_ns": 1000000}, "run": 10, "spin_unlock": "L", "sleep": 950},
        "p2": {"spin_lock": {"ref": "L", "tas_round_ns": 1000, "sleep_min_ns": 1000000}, "run": 10, "spin_unlock": "L", "sleep": 790},
        "p3": {"spin_lock": {"ref": "L", "tas_round_ns": 1000, "sleep_min_ns": 1000000}, "run": 10, "spin_unlock": "L"}}}}})"));
  EXPECT_EQ(r.task("B").cpu_time_ns, 469'000);
  EXPECT_EQ(r.exit_ns("B"), 4'219'000);
}

// An oltp LWLock's name in the expectations' shorthand: "map" a buffer-mapping partition,
// "LockMgrN" a lock-manager partition, the page kinds, "PA" ProcArrayLock, and the others
// without their "Lock" (WALInsertLock -> WALInsert).
std::string lwlock_shorthand(std::string_view n) {
  n.remove_prefix(n.find('.') + 1);  // the "oltp." prefix
  if (n.starts_with("buffer.")) n.remove_prefix(7);
  if (n.starts_with("BufMappingLock")) return "map";
  if (n.starts_with("LockMgrLock")) return "LockMgr" + std::string(n.substr(11));
  for (std::string_view k : {"k_leaf", "leaf", "heap", "root"})
    if (n.starts_with(k)) return std::string(k);
  if (n == "ProcArrayLock") return "PA";
  n.remove_suffix(4);
  return std::string(n);
}

// The LWLocks a PostgreSQL 8.4 backend takes for one sysbench complex read-write
// transaction (oltp_pgsql.cpp has the 8.4 call sites), in order, each "lock:mode" with
// the buffers by kind. Per statement, by hand from 8.4's code paths:
//   snapshot      ProcArrayLock S twice (bind, portal start)
//   a page read   its buffer-mapping partition S, then its content lock S
//   a page change its partition S, its content lock X, WALInsertLock X (one WAL record)
//   BEGIN none; point select: root, leaf, heap read; range: root, leaf, 3 heap pages read
//   (a table of 100 rows on 1 leaf and 3 heap pages: every range covers rows 1-100);
//   UPDATE k: root and leaf read, XidGenLock X (the first write), heap, pkey leaf and
//   k leaf changed; UPDATE c and DELETE: root and leaf read, heap changed; INSERT: heap,
//   pkey leaf, k leaf changed; COMMIT: WALInsertLock X, WALWriteLock X, CLogControlLock X,
//   ProcArrayLock X.
TEST(OltpLwLocks, AComplexTransactionTakesPostgresLwLocksInOrder) {
  const std::string snap = "PA:S PA:S ";
  auto read = [](const char* page) { return fmt::format("map:S {}:S ", page); };
  auto change = [](const char* page) { return fmt::format("map:S {}:X WALInsert:X ", page); };
  const std::string point = snap + read("root") + read("leaf") + read("heap");
  const std::string range =
      snap + read("root") + read("leaf") + read("heap") + read("heap") + read("heap");
  const std::string descend = read("root") + read("leaf");
  std::string expected;
  for (int i = 0; i < 10; ++i) expected += point;
  for (int i = 0; i < 4; ++i) expected += range;
  expected += snap + descend + "XidGen:X " + change("heap") + change("leaf") + change("k_leaf");
  expected += snap + descend + change("heap");                                      // UPDATE c
  expected += snap + descend + change("heap") + change("leaf") + change("k_leaf");  // FIXME
  expected += snap + descend + change("heap");                                      // DELETE
  expected += snap + change("heap") + change("leaf") + change("k_leaf");            // INSERT
  expected += "WALInsert:X WALWrite:X CLogControl:X PA:X ";                         // COMMIT

  const Scenario sc = scenario_from_text(
      R"({"workload": {"generator": "oltp", "clients": 1, "transactions": 1,
          "table_size": 100, "heap_pages": 3, "leaf_pages": 1, "lock_manager": false,
          "buffer_headers": false}})",
      "oltp.json");
  const Workload& w = sc.workload;
  const auto backend = std::find_if(w.tasks.begin(), w.tasks.end(),
                                    [](const TaskSpec& t) { return t.name == "oltp-backend0"; });
  ASSERT_NE(backend, w.tasks.end());
  std::string got;
  int acquires = 0, releases = 0;
  for (const Step& s : backend->phases.front().steps) {
    if (s.op == Op::kLwLockRelease) ++releases;
    if (s.op != Op::kLwLockAcquire) continue;
    ++acquires;
    got += lwlock_shorthand(w.lwlocks.names[s.object]) +
           (static_cast<LwLockMode>(s.amount) == LwLockMode::kShared ? ":S " : ":X ");
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(acquires, 192);
  EXPECT_EQ(releases, acquires);
}

// Without a write the COMMIT takes no LWLock (8.4 procarray.c 264-280: no xid), and BEGIN
// none in either case; `lwlocks: false` keeps the earlier spinlock model (no LWLock).
TEST(OltpLwLocks, ReadOnlyCommitTakesNoneAndTheOldModelStaysReachable) {
  auto lwlock_ops = [](const std::string& extra) {
    const Scenario sc = scenario_from_text(
        R"({"workload": {"generator": "oltp", "clients": 1, "lock_manager": false)" + extra + "}}",
        "oltp.json");
    int n = 0;
    for (const Step& s : sc.workload.tasks.at(1).phases.front().steps)
      n += s.op == Op::kLwLockAcquire;
    return n;
  };
  EXPECT_EQ(lwlock_ops(R"(, "read_only": true, "table_size": 100, "heap_pages": 3,
                         "leaf_pages": 1)"),
            10 * 8 + 4 * 12);
  EXPECT_EQ(lwlock_ops(R"(, "lwlocks": false)"), 0);
  EXPECT_EQ(lwlock_ops(R"(, "variant": "mysql")"), 0);
}

// With the lock manager and the buffer headers (the defaults), by hand from 8.4's code
// (oltp_pgsql.cpp cites it), each LWLock "name:mode", each bare spinlock by kind (`hdr` a
// buffer header, `msgnum` sinval's msgnumLock; the LWLocks' own mutexes left out):
//   sinval        AcceptInvalidationMessages: SInvalReadLock S with msgnumLock inside
//   a page read   its partition S with the pin inside, its content lock S, the unpin
//   a page change the same with the content lock X, marked dirty, the WAL record inside
//   BEGIN         the vxid's lock (partition 3: table 0, pkey 1, k 2, client 0's vxid 3 and
//                 xid 4), sinval (AtStart_Cache)
//   a statement   snapshot, the plan's table lock, snapshot, the executor's index locks,
//                 each new lock followed by sinval; the pages; sinval at the execute's and
//                 at the Sync's CommandCounterIncrement
//   locks         selects: table and pkey AccessShare (new at the first select); UPDATE
//                 and INSERT: table RowExclusive and both indexes RowExclusive (new at
//                 the first UPDATE k), DELETE the table only; the first write's xid lock
//                 after XidGenLock
//   COMMIT        WAL, flush, CLOG, ProcArray, then LockReleaseAll: partitions 0-4 in order
TEST(OltpLwLocks, TheLockManagerSinvalAndBufferHeadersComeWhereThe84CodeTakesThem) {
  const std::string sinval = "SInvalRead:S msgnum ";
  const std::string end = sinval + sinval;
  auto read = [](const char* page) { return fmt::format("map:S hdr {}:S hdr ", page); };
  auto change = [](const char* page) {
    return fmt::format("map:S hdr {}:X hdr WALInsert:X hdr ", page);
  };
  const std::string heap3 = read("heap") + read("heap") + read("heap");
  const std::string descend = read("root") + read("leaf");
  const std::string changes3 = change("heap") + change("leaf") + change("k_leaf");
  const std::string point = read("root") + read("leaf") + read("heap");
  std::string expected = "LockMgr3:X " + sinval;  // BEGIN
  expected += "PA:S LockMgr0:X " + sinval + "PA:S LockMgr1:X " + sinval + point + end;
  for (int i = 1; i < 10; ++i) expected += "PA:S PA:S " + point + end;
  for (int i = 0; i < 4; ++i) expected += "PA:S PA:S " + read("root") + read("leaf") + heap3 + end;
  expected += "PA:S LockMgr0:X " + sinval + "PA:S LockMgr1:X " + sinval + "LockMgr2:X " + sinval +
              descend + "XidGen:X LockMgr4:X " + changes3 + end;  // UPDATE k
  expected += "PA:S PA:S " + descend + change("heap") + end;      // UPDATE c
  expected += "PA:S PA:S " + descend + changes3 + end;            // FIXME
  expected += "PA:S PA:S " + descend + change("heap") + end;      // DELETE
  expected += "PA:S PA:S " + changes3 + end;                      // INSERT
  expected += "WALInsert:X WALWrite:X CLogControl:X PA:X ";
  expected += "LockMgr0:X LockMgr1:X LockMgr2:X LockMgr3:X LockMgr4:X ";

  const Scenario sc = scenario_from_text(
      R"({"workload": {"generator": "oltp", "clients": 1, "transactions": 1,
          "table_size": 100, "heap_pages": 3, "leaf_pages": 1}})",
      "oltp.json");
  const Workload& w = sc.workload;
  std::string got;
  for (const Step& s : w.tasks.at(1).phases.front().steps) {
    if (s.op == Op::kLwLockAcquire) {
      got += lwlock_shorthand(w.lwlocks.names[s.object]) +
             (static_cast<LwLockMode>(s.amount) == LwLockMode::kShared ? ":S " : ":X ");
    } else if (s.op == Op::kSpinLock) {
      const std::string& n = w.spinlocks.names[s.object];
      if (n.ends_with(".header")) got += "hdr ";
      if (n.ends_with(".msgnumLock")) got += "msgnum ";
    }
  }
  EXPECT_EQ(got, expected);
}

// Bad input names the file and the key; misuse at run time is a workload error.
TEST(LwLock, BadModeAndReleaseWithoutHoldAreRefused) {
  try {
    scenario_from_text(
        R"({"tasks": {"t": {"loop": 1, "lwlock_acquire": {"ref": "L", "mode": "shard"}}}})",
        "f.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lwlock_acquire.mode"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_text(scenario(1, R"("tasks": {"t": {"loop": 1, "lwlock_release": "L"}}})")),
               WorkloadError);
}

}  // namespace
}  // namespace schedlab::test
