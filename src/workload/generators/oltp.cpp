// OLTP as sysbench 0.4 drove MySQL and PostgreSQL around 2009 (WORKLOADS.md §3): N client
// threads, one connection each, served by one server task per connection (PostgreSQL's
// backend processes; a MySQL connection thread). Each transaction is sysbench's
// "complex" one, every query a synchronous round trip: BEGIN, 10 point selects, 4 range
// queries (simple, SUM, ORDER BY, DISTINCT), in read-write mode an index update, a
// non-index update, a delete and an insert, then COMMIT (16 or 20 round trips).
//
// The server takes short locks as the databases do, each a spin_lock/hold/spin_unlock
// of the core vocabulary: every query the snapshot lock (PostgreSQL's ProcArrayLock,
// whose LWLock state is guarded by a spinlock taken exclusively even for shared mode),
// then one of `buffer_partitions` buffer-mapping locks; writes the WAL insert lock;
// COMMIT the WAL lock and the snapshot lock. How a waiter waits is the lock policy:
//   pg_spin  PostgreSQL s_lock: spin, then sleep 1 ms growing by random(1..2) (wrapping
//            past 1 s, "stuck spinlock" after 1000 sleeps), no yield;
//   innodb   InnoDB's mutex: spin rounds, sched_yield, then block on an OS event;
//   futex    a short spin, then block with hand-off.
// Marks: `transactions` and `queries`. The engine counts `lock_holder_preemptions`.
//
// Assumptions (parameters with these defaults, not measurements): client work per query
// 20 us; server CPU per point select 50 us, per range query 200 us, per write 100 us,
// BEGIN 10 us, COMMIT 50 us; critical sections 1 us (WAL 5 us); 16 buffer partitions;
// spin phases of 10 us (pg_spin), 20 us and one yield (innodb), 1 us (futex). The buffer
// partition of each query is fixed per client and query position (a hash), so runs are
// deterministic.
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/generators.h"

namespace schedlab {

namespace {

struct OltpParams {
  std::string variant = "pgsql", lock_policy, name = "oltp";
  int clients = 8, buffer_partitions = 16;
  int64_t transactions = -1;
  bool read_only = false;
  Time client_ns = 20'000, point_ns = 50'000, range_ns = 200'000, write_ns = 100'000,
       begin_ns = 10'000, commit_ns = 50'000, hold_ns = 1'000, wal_hold_ns = 5'000;
};

SpinLockConfig lock_config(const std::string& policy) {
  SpinLockConfig c;  // PostgreSQL's s_lock back-off schedule by default
  if (policy == "innodb") {
    c.spin_ns = 20'000;
    c.yield_rounds = 1;
    c.fallback = SpinFallback::kBlock;
  } else if (policy == "futex") {
    c.spin_ns = 1'000;
    c.fallback = SpinFallback::kBlock;
  }
  return c;
}

}  // namespace

void generate_oltp(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  OltpParams p;
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "variant") {
      p.variant = r.string(v, key);
      if (p.variant != "pgsql" && p.variant != "mysql") r.fail(key, "expected pgsql or mysql");
    } else if (k == "lock_policy") {
      p.lock_policy = r.string(v, key);
      if (p.lock_policy != "pg_spin" && p.lock_policy != "innodb" && p.lock_policy != "futex")
        r.fail(key, "expected pg_spin, innodb or futex");
    } else if (k == "clients") {
      p.clients = static_cast<int>(r.integer_in(v, key, 1, 4096));
    } else if (k == "transactions") {
      p.transactions = r.integer_in(v, key, -1, 1'000'000'000);
      if (p.transactions == 0) r.fail(key, "must be positive, or -1 for no end");
    } else if (k == "read_only") {
      p.read_only = r.boolean(v, key);
    } else if (k == "buffer_partitions") {
      p.buffer_partitions = static_cast<int>(r.integer_in(v, key, 1, 1024));
    } else if (k == "client_ns") {
      p.client_ns = r.duration(v, key, 1);
    } else if (k == "point_ns") {
      p.point_ns = r.duration(v, key, 1);
    } else if (k == "range_ns") {
      p.range_ns = r.duration(v, key, 1);
    } else if (k == "write_ns") {
      p.write_ns = r.duration(v, key, 1);
    } else if (k == "begin_ns") {
      p.begin_ns = r.duration(v, key, 1);
    } else if (k == "commit_ns") {
      p.commit_ns = r.duration(v, key, 1);
    } else if (k == "hold_ns") {
      p.hold_ns = r.duration(v, key, 1);
    } else if (k == "wal_hold_ns") {
      p.wal_hold_ns = r.duration(v, key, 1);
    } else if (k == "name") {
      p.name = r.string(v, key);
    } else {
      r.fail(key,
             "unknown key (generator, variant, lock_policy, clients, transactions, read_only, "
             "buffer_partitions, client_ns, point_ns, range_ns, write_ns, begin_ns, commit_ns, "
             "hold_ns, wal_hold_ns, name)");
    }
  }
  if (p.lock_policy.empty()) p.lock_policy = p.variant == "pgsql" ? "pg_spin" : "innodb";
  w.spin_configs.push_back(lock_config(p.lock_policy));
  const auto config = static_cast<int64_t>(w.spin_configs.size() - 1);
  const int32_t snapshot = w.spinlocks.intern(p.name + ".snapshot");
  const int32_t wal = w.spinlocks.intern(p.name + ".wal");
  std::vector<int32_t> buffers;
  for (int b = 0; b < p.buffer_partitions; ++b)
    buffers.push_back(w.spinlocks.intern(fmt::format("{}.buffer{}", p.name, b)));
  const int32_t transactions = w.marks.intern("transactions");
  const int32_t queries = w.marks.intern("queries");

  auto section = [&](std::vector<Step>& s, int32_t lock, Time hold) {
    s.push_back(Step{Op::kSpinLock, 0, config, lock, -1, false, false});
    s.push_back(gen::run(hold));
    s.push_back(Step{Op::kSpinUnlock, 0, 0, lock, -1, false, false});
  };
  enum class Kind { kBegin, kPoint, kRange, kWrite, kCommit };
  std::vector<Kind> txn{Kind::kBegin};
  for (int i = 0; i < 10; ++i) txn.push_back(Kind::kPoint);
  for (int i = 0; i < 4; ++i) txn.push_back(Kind::kRange);
  if (!p.read_only)
    for (int i = 0; i < 4; ++i) txn.push_back(Kind::kWrite);
  txn.push_back(Kind::kCommit);

  for (int c = 0; c < p.clients; ++c) {
    const int32_t request = w.semaphores.intern(fmt::format("{}.{}.request", p.name, c));
    const int32_t reply = w.semaphores.intern(fmt::format("{}.{}.reply", p.name, c));
    std::vector<Step> client, server;
    for (size_t q = 0; q < txn.size(); ++q) {
      client.push_back(gen::run(p.client_ns));
      client.push_back(Step{Op::kSemPost, 0, 1, request, -1, false, true});
      client.push_back(Step{Op::kSemWait, 0, 1, reply, -1, false, false});
      client.push_back(gen::mark(queries));
      server.push_back(Step{Op::kSemWait, 0, 1, request, -1, false, false});
      const int32_t buffer = buffers[(static_cast<size_t>(c) * 7919 + q * 104729) % buffers.size()];
      switch (txn[q]) {
        case Kind::kBegin:
          section(server, snapshot, p.hold_ns);
          server.push_back(gen::run(p.begin_ns));
          break;
        case Kind::kPoint:
        case Kind::kRange:
          section(server, snapshot, p.hold_ns);
          section(server, buffer, p.hold_ns);
          server.push_back(gen::run(txn[q] == Kind::kPoint ? p.point_ns : p.range_ns));
          break;
        case Kind::kWrite:
          section(server, snapshot, p.hold_ns);
          section(server, buffer, p.hold_ns);
          section(server, wal, p.wal_hold_ns);
          server.push_back(gen::run(p.write_ns));
          break;
        case Kind::kCommit:
          section(server, wal, p.wal_hold_ns);
          section(server, snapshot, p.hold_ns);
          server.push_back(gen::run(p.commit_ns));
          break;
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

}  // namespace schedlab
