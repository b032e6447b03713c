// OLTP as sysbench 0.4 drove MySQL and PostgreSQL around 2009 (docs/workloads/oltp.md): N client
// threads, one connection each, served by one server task per connection (PostgreSQL's
// backend processes; a MySQL connection thread). The transaction is sysbench's
// --oltp-test-mode (akopytov/sysbench branch 0.4 @df31f67, sysbench/tests/oltp/sb_oltp.c),
// every query a synchronous round trip:
//   complex (the default, l.43)  BEGIN, 10 point selects, 4 range queries (simple, SUM,
//            ORDER BY, DISTINCT), in read-write mode an index update, a non-index update,
//            one more index update on the id then deleted and re-inserted ("FIXME ... to
//            make PostgreSQL work", l.1029-1056), a delete and an insert, COMMIT: 21
//            statements, 16 read-only (get_request_complex, l.845-1090);
//   simple   one point select per transaction, no BEGIN/COMMIT (get_request_simple, l.808);
//   nontrx   one statement of --oltp-nontrx-mode, its default a point select (l.1096).
//
// pgsql (with `lwlocks`, the default): the backend takes PostgreSQL 8.4's LWLocks per
// statement as 8.4's code does (oltp_pgsql.cpp: ProcArrayLock, buffer-mapping partitions,
// buffer content locks, WALInsertLock, XidGenLock, and at a writing COMMIT WALInsertLock,
// WALWriteLock, CLogControlLock and ProcArrayLock exclusive; with `lock_manager` the
// LockMgrLock partitions and SInvalReadLock, with `buffer_headers` the buffer header
// spinlocks), each an LWLock of the engine
// (sim/lwlock.h: a waiter queues and sleeps, a release wakes the head), whose mutex
// spinlock waits as 8.4's s_lock, spins_per_delay adaptive.
// mysql (with `innodb_latches`, the default): the connection thread takes MySQL 5.1.45
// InnoDB's global mutexes per statement as its code does (oltp_innodb.cpp: kernel_mutex,
// buf_pool->mutex, log_sys->mutex, the rollback segment's and the auto-increment mutex),
// each waited for as InnoDB's mutex_spin_wait, and with `innodb_search_latch` the adaptive
// hash index's rw-lock btr_search_latch (sim/innodb_rw_lock.h: S over each point select's
// hash lookup, X on each change of a leaf record).
// mysql with `innodb_latches: false`, and pgsql with `lwlocks: false` (the earlier model):
// the server takes short
// locks, each a spin_lock/hold/spin_unlock of the core vocabulary: every query the
// snapshot lock, then one of `buffer_partitions` buffer-mapping locks; writes the WAL
// insert lock; COMMIT the WAL lock and the snapshot lock. How a waiter waits is the lock
// policy:
//   pg_spin  PostgreSQL s_lock: spin, then sleep 1 ms growing by random(1..2) (wrapping
//            past 1 s, "stuck spinlock" after 1000 sleeps), no yield;
//   innodb   InnoDB 5.0/5.1's mutex (sync0sync.c mutex_spin_wait): 20 rounds of a random
//            0..5 x ut_delay(1), one sched_yield, one test-and-set, then wait on the
//            mutex's event; mutex_exit's os_event_set wakes every waiter, none handed the
//            lock (SpinFallback::kEvent);
//   futex    a short spin, then block with hand-off.
// mysql: InnoDB 5.0/5.1's thread concurrency gate (srv0srv.c srv_conc_enter_innodb and
// srv_conc_force_exit_innodb, MySQL 5.1.45): at most innodb_thread_concurrency (8)
// statements inside InnoDB; at a full gate a statement whose transaction holds no row
// locks sleeps innodb_thread_sleep_delay (10 ms) once and tries again, then queues FIFO
// on its own event; a leaver wakes the first queued thread alone and counts it inside.
// Marks: `transactions` and `read_write_requests` (sysbench's "read/write requests": the
// SELECTs, UPDATEs, DELETEs and INSERTs, not BEGIN/COMMIT; oltp_print_stats, l.1364-1371),
// and `queries` (every round trip). The engine counts `lock_holder_preemptions`.
//
// The rows: sysbench 0.4's GET_RANDOM_ID (oltp_keys.h; akopytov/sysbench branch 0.4
// @db2d315f743b): `special` by default, 12 iterations, 1 % of the table for 75 % of the
// draws, 10,000 rows. Each statement's id is drawn once per client and query position,
// from a generator seeded by the scenario's seed and both numbers, so runs are
// deterministic; the program repeats, so the distribution is across clients and
// positions, not across one client's transactions. As in sysbench the extra index update,
// the delete and the insert share one id, and a range query starts at its clamped id and
// covers 100 rows (101 for DISTINCT, sysbench's off-by-one).
//
// Assumptions (parameters with these defaults, not measurements): client work per query
// 20 us; server CPU per point select 50 us, per range query 200 us, per write 100 us,
// BEGIN 10 us, COMMIT 50 us; critical sections 1 us (WAL 5 us); 16 buffer partitions;
// spin phases of 10 us (pg_spin without LWLocks), 1 us (futex); InnoDB's ut_delay unit
// 20 ns; with LWLocks one s_lock round 50 ns, 100 ns under an LWLock's mutex, a commit's
// WAL flush 5 us, 28 leaf pages per index and 250 heap pages; a point select's S on
// btr_search_latch 2 us, 100 ns under its mutex. Without LWLocks a query's
// buffer partition is that of its (first) row's page.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "workload/generators/builder.h"
#include "workload/generators/declare.h"
#include "workload/generators/oltp_innodb.h"
#include "workload/generators/oltp_keys.h"
#include "workload/generators/oltp_pgsql.h"

namespace schedlab {

namespace {

#define OLTP_PARAMS(X)                                                                         \
  X(std::string, variant, "pgsql", params::one_of({"pgsql", "mysql"}), "sysbench 0.4 (E4)",    \
    "the database: PostgreSQL backend processes or MySQL connection threads")                  \
  X(std::string, lock_policy, "auto", params::one_of({"auto", "pg_spin", "innodb", "futex"}),  \
    "PostgreSQL s_lock; InnoDB mutexes",                                                       \
    "how a lock waiter waits; auto: pg_spin for pgsql, innodb for mysql")                      \
  X(int, clients, 8, params::range(1, 4096), "sysbench --num-threads (E4)",                    \
    "client threads, one connection and one server task each")                                 \
  X(int64_t, transactions, -1, params::range(-1, 1'000'000'000), "schedlab",                   \
    "transactions per client; -1: until the duration")                                         \
  X(std::string, mode, "complex", params::one_of({"complex", "simple", "nontrx"}),             \
    "sysbench 0.4 --oltp-test-mode",                                                           \
    "the transaction: complex (21 statements), simple or "                                     \
    "nontrx (one point select)")                                                               \
  X(bool, read_only, false, params::any(), "sysbench --oltp-read-only",                        \
    "leave out the 5 writes of a complex transaction")                                         \
  X(int, buffer_partitions, 16, params::range(1, 1024), "assumption (PostgreSQL 8.x's count)", \
    "buffer-mapping locks a query picks one of")                                               \
  X(Time, client_ns, 20'000, params::duration(), "assumption", "client CPU per query")         \
  X(Time, point_ns, 50'000, params::duration(), "assumption", "server CPU per point select")   \
  X(Time, range_ns, 200'000, params::duration(), "assumption", "server CPU per range query")   \
  X(Time, write_ns, 100'000, params::duration(), "assumption", "server CPU per write")         \
  X(Time, begin_ns, 10'000, params::duration(), "assumption", "server CPU of BEGIN")           \
  X(Time, commit_ns, 50'000, params::duration(), "assumption", "server CPU of COMMIT")         \
  X(Time, hold_ns, 1'000, params::duration(), "assumption",                                    \
    "critical section under the snapshot and buffer locks")                                    \
  X(Time, wal_hold_ns, 5'000, params::duration(), "assumption",                                \
    "critical section under the WAL insert lock")                                              \
  X(bool, lwlocks, true, params::any(), "PostgreSQL 8.4 lwlock.c",                             \
    "pgsql: the LWLocks 8.4 takes (queued waiters asleep); false: the earlier model, each "    \
    "lock a spinlock")                                                                         \
  X(Time, tas_round_ns, kDefaultTasRoundNs, params::duration(),                                \
    "assumption (8.4 s_lock.c spins_per_delay)",                                               \
    "pgsql with lwlocks: one TAS + PAUSE round of s_lock, spun spins_per_delay times")         \
  X(Time, mutex_ns, 100, params::duration(), "assumption",                                     \
    "pgsql with lwlocks: CPU under an LWLock's mutex spinlock per acquire or release, "        \
    "and under a buffer header or sinval's msgnumLock spinlock; mysql with "                   \
    "innodb_search_latch: under btr_search_latch's own mutex per lock or unlock")              \
  X(bool, lock_manager, true, params::any(), "PostgreSQL 8.4 lock.c, sinval.c",                \
    "pgsql with lwlocks: the lock manager's partition locks (vxid, xid, the relations) and "   \
    "the shared invalidation queue's read at each new relation lock and command end")          \
  X(bool, buffer_headers, true, params::any(), "PostgreSQL 8.4 bufmgr.c",                      \
    "pgsql with lwlocks: the buffer header spinlock of each pin, unpin and dirtying")          \
  X(Time, wal_flush_ns, 5'000, params::duration(), "assumption",                               \
    "pgsql with lwlocks: COMMIT's hold of WALWriteLock (write and flush)")                     \
  X(int, leaf_pages, 28, params::range(1, 100'000), "assumption (10,000 rows)",                \
    "pgsql with lwlocks: leaf pages of each index")                                            \
  X(int, heap_pages, 250, params::range(1, 1'000'000), "assumption (10,000 rows)",             \
    "heap pages of the table (the pages a row's buffer partition follows without lwlocks)")    \
  X(int, innodb_sync_spin_loops, 20, params::range(0, 1'000'000),                              \
    "MySQL 5.0.96 mysqld.cc, 5.1.45 ha_innodb.cc (SYNC_SPIN_ROUNDS)",                          \
    "innodb: spin rounds of mutex_spin_wait")                                                  \
  X(int, innodb_spin_wait_delay, 5, params::range(0, 1'000'000),                               \
    "srv_spin_wait_delay, hard-coded in built-in 5.0/5.1 srv0srv.c",                           \
    "innodb: a spin round delays ut_delay(uniform 0..this)")                                   \
  X(Time, ut_delay_unit_ns, 20, params::duration(),                                            \
    "assumption: ut_delay's 50 dependent adds, ~50 cycles at 2.5 GHz (Q9300)",                 \
    "innodb: the CPU time of ut_delay(1)")                                                     \
  X(bool, innodb_latches, true, params::any(), "MySQL 5.1.45 storage/innobase",                \
    "mysql: the global InnoDB mutexes 5.1 takes (kernel, buf_pool, log_sys, rseg, autoinc); "  \
    "false: the earlier model, pgsql's spinlocks waited for as InnoDB mutexes")                \
  X(bool, innodb_search_latch, true, params::any(), "MySQL 5.1.45 row0sel.c, btr0cur.c",       \
    "mysql with innodb_latches: btr_search_latch, the adaptive hash index's rw-lock (S over "  \
    "a point select's hash lookup, X on each change of a leaf record, every leaf hashed)")     \
  X(Time, search_latch_s_ns, 2'000, params::duration(), "assumption",                          \
    "mysql with innodb_search_latch: a point select's hold of S, its hash lookup and the "     \
    "row's copy")                                                                              \
  X(int, innodb_thread_concurrency, 8, params::range(0, 1000),                                 \
    "MySQL 5.1.45 ha_innodb.cc (sysvar innodb_thread_concurrency)",                            \
    "mysql: threads let inside InnoDB at once (srv_conc_enter_innodb); 0: no gate")            \
  X(Time, innodb_thread_sleep_delay_ns, 10'000'000, params::duration(),                        \
    "MySQL 5.1.45 srv0srv.c srv_thread_sleep_delay (10000 us)",                                \
    "mysql: the one sleep at a full gate of a statement that holds no row locks yet")          \
  X(std::string, dist_type, "special", params::one_of({"special", "uniform", "gaussian"}),     \
    "sysbench 0.4 --oltp-dist-type", "how the rows a statement touches are drawn")             \
  X(int, dist_iter, 12, params::range(1, 100), "sysbench 0.4 --oltp-dist-iter",                \
    "uniform draws averaged by gaussian (and special's gaussian part)")                        \
  X(int, dist_pct, 1, params::range(0, 100), "sysbench 0.4 --oltp-dist-pct",                   \
    "special: the hot share of the table, in percent, at its middle")                          \
  X(int, dist_res, 75, params::range(0, 99), "sysbench 0.4 --oltp-dist-res",                   \
    "special: the share of draws sent to the hot rows (its 100 / (100 - res) multiplier)")     \
  X(int, table_size, 10'000, params::range(1, 10'000'000), "sysbench 0.4 --oltp-table-size",   \
    "rows of the table, spread evenly over its pages in id order")                             \
  X(std::string, name, "oltp", params::any(), "schedlab", "prefix of task and object names")
SCHEDLAB_DECLARE_PARAMS(OltpParams, OLTP_PARAMS)

void validate(const OltpParams& p, const GeneratorContext& ctx) {
  if (p.transactions == 0)
    gen::reject(ctx, &OltpParams::transactions, "must be positive, or -1 for no end");
}

SpinLockConfig lock_config(const OltpParams& p, const std::string& policy) {
  SpinLockConfig c;  // PostgreSQL's s_lock back-off schedule by default
  if (policy == "innodb") {
    // mutex_spin_wait (engine_program.cpp): the rounds, one os_thread_yield, one more
    // test-and-set, then the event.
    c.spin_rounds = p.innodb_sync_spin_loops;
    c.round_delay_max = p.innodb_spin_wait_delay;
    c.delay_unit_ns = p.ut_delay_unit_ns;
    c.yield_rounds = 1;
    c.fallback = SpinFallback::kEvent;
  } else if (policy == "futex") {
    c.spin_ns = 1'000;  // a short spin: an assumption
    c.fallback = SpinFallback::kBlock;
  }
  return c;
}

// sysbench 0.4's transactions (see the file comment): complex is BEGIN, 10 point
// selects, 4 range queries, in read-write mode 5 writes (index update, non-index update,
// the extra index update, delete, insert), COMMIT; simple and nontrx one point select.
using oltp::Query;
std::vector<Query> transaction(const std::string& mode, bool read_only) {
  if (mode != "complex") return {Query::kPoint};
  std::vector<Query> txn{Query::kBegin};
  for (int i = 0; i < 10; ++i) txn.push_back(Query::kPoint);
  for (int i = 0; i < 4; ++i) txn.push_back(Query::kRange);
  if (!read_only)
    for (Query q : {Query::kIndexUpdate, Query::kNonIndexUpdate, Query::kIndexUpdate,
                    Query::kDelete, Query::kInsert})
      txn.push_back(q);
  txn.push_back(Query::kCommit);
  return txn;
}

bool is_write(Query q) {
  return q == Query::kIndexUpdate || q == Query::kNonIndexUpdate || q == Query::kDelete ||
         q == Query::kInsert;
}

struct Locks {
  int64_t config;  // the waiting policy, an index into the workload's spin configs
  int32_t snapshot, wal;
  std::vector<int32_t> buffers;
};

Time server_cpu(const OltpParams& p, Query query) {
  switch (query) {
    case Query::kBegin:
      return p.begin_ns;
    case Query::kPoint:
      return p.point_ns;
    case Query::kRange:
      return p.range_ns;
    case Query::kCommit:
      return p.commit_ns;
    default:
      return p.write_ns;
  }
}

// The server's part of one query in the earlier model (mysql, and pgsql without
// `lwlocks`): the locks it takes in order, each a spinlock, then its CPU.
void serve(const OltpParams& p, const Locks& locks, Query query, int32_t buffer,
           std::vector<Step>& s) {
  auto section = [&](int32_t lock, Time hold) {
    s.push_back(gen::spin_lock(lock, locks.config));
    s.push_back(gen::run(hold));
    s.push_back(gen::spin_unlock(lock));
  };
  switch (query) {
    case Query::kBegin:
      section(locks.snapshot, p.hold_ns);
      s.push_back(gen::run(p.begin_ns));
      break;
    case Query::kPoint:
    case Query::kRange:
      section(locks.snapshot, p.hold_ns);
      section(buffer, p.hold_ns);
      s.push_back(gen::run(query == Query::kPoint ? p.point_ns : p.range_ns));
      break;
    case Query::kIndexUpdate:
    case Query::kNonIndexUpdate:
    case Query::kDelete:
    case Query::kInsert:
      section(locks.snapshot, p.hold_ns);
      section(buffer, p.hold_ns);
      section(locks.wal, p.wal_hold_ns);
      s.push_back(gen::run(p.write_ns));
      break;
    case Query::kCommit:
      section(locks.wal, p.wal_hold_ns);
      section(locks.snapshot, p.hold_ns);
      s.push_back(gen::run(p.commit_ns));
      break;
  }
}

// Each statement's first and last row (oltp_keys.h; see the file comment), drawn once per
// client and position. BEGIN and COMMIT touch none (0).
std::vector<std::pair<int64_t, int64_t>> rows(const OltpParams& p, const std::vector<Query>& txn,
                                              uint64_t seed, size_t client) {
  oltp::KeySettings k;
  k.dist = p.dist_type == "uniform"    ? oltp::KeyDist::kUniform
           : p.dist_type == "gaussian" ? oltp::KeyDist::kGaussian
                                       : oltp::KeyDist::kSpecial;
  k.table_size = p.table_size;
  k.iter = p.dist_iter;
  k.pct = p.dist_pct;
  k.res = p.dist_res;
  constexpr int64_t kRangeSize = 100;  // sysbench 0.4 --oltp-range-size
  std::vector<std::pair<int64_t, int64_t>> out(txn.size(), {0, 0});
  int ranges = 0;
  for (size_t q = 0; q < txn.size(); ++q) {
    if (txn[q] == Query::kBegin || txn[q] == Query::kCommit) continue;
    // The delete and the insert reuse the id of the extra index update just before them.
    if ((txn[q] == Query::kDelete || txn[q] == Query::kInsert) && q > 0) {
      out[q] = out[q - 1];
      continue;
    }
    Rng rng = oltp::key_rng(seed, client, q);
    const int64_t id = oltp::draw_key(k, [&] { return rng.below(oltp::kSbRndBound); });
    if (txn[q] != Query::kRange) {
      out[q] = {id, id};
      continue;
    }
    // The fourth range is the DISTINCT one, whose BETWEEN covers one row more.
    const int64_t start = oltp::range_start(id, p.table_size, kRangeSize);
    const int64_t size = ++ranges == 4 ? kRangeSize + 1 : kRangeSize;
    out[q] = {start, std::min(start + size - 1, static_cast<int64_t>(p.table_size))};
  }
  return out;
}

void generate(const OltpParams& p, const GeneratorContext& ctx, Workload& w) {
  const std::string lock_policy = p.lock_policy != "auto" ? p.lock_policy
                                  : p.variant == "pgsql"  ? "pg_spin"
                                                          : "innodb";
  const bool lwlocks = p.variant == "pgsql" && p.lwlocks;
  w.spin_configs.push_back(lock_config(p, lock_policy));
  // With LWLocks, s_lock guards their state: spins_per_delay rounds, adapted per backend.
  if (lwlocks && lock_policy == "pg_spin") w.spin_configs.back().tas_round_ns = p.tas_round_ns;
  Locks locks;
  locks.config = static_cast<int64_t>(w.spin_configs.size() - 1);
  std::optional<oltp::PgLocks> pg;
  std::optional<oltp::InnodbLatches> innodb;
  if (lwlocks) {
    pg.emplace(w, oltp::PgSettings{p.name, p.buffer_partitions, p.leaf_pages, p.heap_pages,
                                   p.table_size, p.hold_ns, p.wal_hold_ns, p.wal_flush_ns,
                                   p.mutex_ns, locks.config, p.lock_manager, p.buffer_headers});
  } else if (p.variant == "mysql" && p.innodb_latches) {
    innodb.emplace(
        w, oltp::InnodbSettings{p.name, p.hold_ns, p.wal_hold_ns, p.wal_flush_ns, locks.config,
                                p.innodb_search_latch, p.search_latch_s_ns, p.mutex_ns});
  } else {
    locks.snapshot = w.spinlocks.intern(p.name + ".snapshot");
    locks.wal = w.spinlocks.intern(p.name + ".wal");
    for (int b = 0; b < p.buffer_partitions; ++b)
      locks.buffers.push_back(w.spinlocks.intern(fmt::format("{}.buffer{}", p.name, b)));
  }
  const int32_t transactions = w.marks.intern("transactions");
  const int32_t requests = w.marks.intern("read_write_requests");
  const int32_t queries = w.marks.intern("queries");
  const std::vector<Query> txn = transaction(p.mode, p.read_only);
  const auto first_write = std::find_if(txn.begin(), txn.end(), is_write);
  const bool writes = first_write != txn.end();
  const auto first_data = std::find_if(
      txn.begin(), txn.end(), [](Query q) { return q != Query::kBegin && q != Query::kCommit; });

  // InnoDB's thread concurrency gate (mysql): a semaphore of that many slots, FIFO, the
  // leaver handing its slot to the first queued thread, as srv_conc_force_exit_innodb does.
  int32_t gate = -1;
  if (p.variant == "mysql" && p.innodb_thread_concurrency > 0) {
    gate = w.semaphores.intern(p.name + ".innodb_concurrency");
    gen::set_semaphore_initial(w, gate, p.innodb_thread_concurrency);
  }

  for (int c = 0; c < p.clients; ++c) {
    const int32_t request = w.semaphores.intern(fmt::format("{}.{}.request", p.name, c));
    const int32_t reply = w.semaphores.intern(fmt::format("{}.{}.reply", p.name, c));
    std::vector<Step> client, server;
    const auto ids = rows(p, txn, ctx.seed, static_cast<size_t>(c));
    oltp::PgTransaction pg_txn{c, txn.front() == Query::kBegin, 0};
    for (size_t q = 0; q < txn.size(); ++q) {
      const auto at = txn.begin() + static_cast<std::ptrdiff_t>(q);
      client.push_back(gen::run(p.client_ns));
      client.push_back(Step{Op::kSemPost, 0, 1, request, -1, false, true});
      client.push_back(Step{Op::kSemWait, 0, 1, reply, -1, false, false});
      client.push_back(gen::mark(queries));
      if (txn[q] != Query::kBegin && txn[q] != Query::kCommit)
        client.push_back(gen::mark(requests));
      server.push_back(Step{Op::kSemWait, 0, 1, request, -1, false, false});
      if (pg) {
        pg->serve(txn[q], ids[q].first, ids[q].second, at == first_write, writes, pg_txn, server);
        server.push_back(gen::run(server_cpu(p, txn[q])));
      } else {
        // A data statement passes the gate at its first row call and leaves it at its end
        // (external_lock's innobase_release_stat_resources), before the reply is sent; it
        // makes at most 102 row calls, fewer than innodb_concurrency_tickets (500), so it
        // enters once. BEGIN does not reach InnoDB; COMMIT (innobase_commit) only leaves.
        // srv_conc_enter_innodb sleeps once before queueing only while the transaction
        // holds no locks: up to its first write, whose locks are taken after the entry.
        const bool gated = gate >= 0 && txn[q] != Query::kBegin && txn[q] != Query::kCommit;
        if (gated) {
          Step enter = gen::sem_wait(gate);
          if (at <= first_write) enter.duration_ns = p.innodb_thread_sleep_delay_ns;
          server.push_back(enter);
        }
        if (innodb) {
          innodb->serve(txn[q], at == first_data, at == first_write, writes, server);
          server.push_back(gen::run(server_cpu(p, txn[q])));
        } else {
          // The buffer partition of the (first) row's page, the pages spread over the
          // partitions by a multiplicative hash (as PgLocks spreads its buffers).
          const auto page =
              static_cast<uint64_t>(oltp::page_of(ids[q].first, p.table_size, p.heap_pages));
          const size_t partition = (page * 2654435761u) % locks.buffers.size();
          serve(p, locks, txn[q], locks.buffers[partition], server);
        }
        if (gated) server.push_back(gen::sem_post(gate));
        // Without BEGIN the statement is its own transaction, committed at its end
        // (external_lock's innobase_commit, after it has left the gate).
        if (innodb && txn.back() != Query::kCommit)
          innodb->serve(Query::kCommit, false, false, false, server);
      }
      server.push_back(Step{Op::kSemPost, 0, 1, reply, -1, false, true});
    }
    client.push_back(gen::mark(transactions));
    const int64_t loop = p.transactions > 0 ? p.transactions : INT64_MAX;
    TaskSpec client_task =
        gen::one_shot(fmt::format("{}-client{}", p.name, c), 1, std::move(client));
    client_task.phases.front().loop = loop;
    gen::add_task(w, std::move(client_task));
    TaskSpec server_task =
        gen::one_shot(fmt::format("{}-{}{}", p.name, p.variant == "pgsql" ? "backend" : "conn", c),
                      1, std::move(server));
    server_task.phases.front().loop = loop;
    gen::add_task(w, std::move(server_task));
  }
}

}  // namespace

GeneratorInfo oltp_generator() {
  return gen::declare<OltpParams>(
      "oltp", "sysbench 0.4 OLTP against PostgreSQL or MySQL, with their userland locks", generate,
      validate);
}

}  // namespace schedlab
