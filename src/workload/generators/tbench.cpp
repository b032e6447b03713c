// tbench (the dbench package, docs/workloads/tbench.md): N client processes, each with one TCP
// connection over loopback to a server process that tbench_srv forks for it. Every
// client replays client.txt as strict request/reply exchanges, so each pair ping-pongs:
// the client computes, sends (a sync wake-up of the server) and blocks for the reply;
// the server blocks for a request, computes, and replies (a sync wake-up back).
//
// From dbench 4.0's source (tbench_sizes.cpp): each exchange's request and reply sizes
// (sockio.c), drawn from client.txt's own counted exchanges (tbench_client_txt.cpp); the
// connection's first 8-byte exchange (nb_setup()); "tbench_bytes" counts what tbench's
// MB/sec counts, the data of ReadX replies and WriteX requests (child->bytes); the
// client discards each reply's body unread (recv(MSG_TRUNC)), the server reads and
// writes every byte (tbench_srv.c's server()).
// Assumptions, not measurements: per exchange 8 us of client and 10 us of server CPU
// plus 0.5 ns per byte each side copies. Each pair replays its own sample of client.txt's
// exchanges (1024 unless `ops` says), in a loop when `ops` is -1.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "util/rng.h"
#include "workload/generators/builder.h"
#include "workload/generators/declare.h"
#include "workload/generators/tbench_sizes.h"

namespace schedlab {
namespace {

#define TBENCH_PARAMS(X)                                                                  \
  X(int, clients, 8, params::range(1, 4096), "tbench 8 (E2, E4)",                         \
    "client processes, each served by its own server process")                            \
  X(int64_t, ops, -1, params::range(-1, 100'000'000), "schedlab",                         \
    "exchanges per client; -1: a 1024-exchange sample in a loop until the duration")      \
  X(Time, client_ns, 8'000, params::duration(), "assumption", "client CPU per exchange")  \
  X(Time, server_ns, 10'000, params::duration(), "assumption", "server CPU per exchange") \
  X(int64_t, ps_per_byte, 500, params::range(0, 1'000'000), "assumption",                 \
    "CPU picoseconds per byte a side copies (loopback)")                                  \
  X(std::string, name, "tbench", params::any(), "schedlab", "prefix of the task and object names")
SCHEDLAB_DECLARE_PARAMS(TbenchParams, TBENCH_PARAMS)

void validate(const TbenchParams& p, const GeneratorContext& ctx) {
  if (p.ops == 0) gen::reject(ctx, &TbenchParams::ops, "must be positive, or -1 for no end");
}

void generate(const TbenchParams& p, const GeneratorContext& ctx, Workload& w) {
  const std::string& name = p.name;
  const int32_t ops_mark = w.marks.intern("tbench_ops");
  const int32_t bytes_mark = w.marks.intern("tbench_bytes");
  const int32_t connections = w.semaphores.intern(name + ".connections");
  Rng rng(ctx.seed ^ 0x7462656e6368ULL);  // "tbench": a stream of its own

  std::vector<int32_t> server_tasks;
  std::vector<Step> client_main;
  for (int i = 0; i < p.clients; ++i) {
    const int32_t request = w.semaphores.intern(fmt::format("{}.{}.request", name, i));
    const int32_t reply = w.semaphores.intern(fmt::format("{}.{}.reply", name, i));
    const int64_t n = p.ops > 0 ? p.ops : 1024;  // 1024: judgement, the mix within 0.1 %
    // Copy costs: the client writes its request and reads the reply's 4-byte header, the
    // rest it drops unread (do_packets(): recv(MSG_TRUNC), "to lower client cpu usage");
    // the server reads the request and writes the reply.
    auto client_cpu = [&](const TbenchExchange& x) {
      return p.client_ns + (x.request + 4) * p.ps_per_byte / 1000;
    };
    auto server_cpu = [&](const TbenchExchange& x) {
      return p.server_ns + (x.request + x.reply) * p.ps_per_byte / 1000;
    };
    auto exchange = [&](const TbenchExchange& x, std::vector<Step>& client_ops,
                        std::vector<Step>& server_ops) {
      client_ops.push_back(gen::run(client_cpu(x)));
      client_ops.push_back(Step{Op::kSemPost, 0, 1, request, -1, false, true});
      client_ops.push_back(Step{Op::kSemWait, 0, 1, reply, -1, false, false});
      server_ops.push_back(Step{Op::kSemWait, 0, 1, request, -1, false, false});
      server_ops.push_back(gen::run(server_cpu(x)));
      server_ops.push_back(Step{Op::kSemPost, 0, 1, reply, -1, false, true});
    };
    // nb_setup(): once connected, do_packets(8, 8), counted nowhere.
    std::vector<Step> client_setup = {Step{Op::kSemPost, 0, 1, connections, -1, false, false}};
    std::vector<Step> server_setup;
    TbenchExchange setup;
    setup.request = setup.reply = 8;
    exchange(setup, client_setup, server_setup);
    std::vector<Step> client_ops, server_ops;
    for (const TbenchExchange& x : tbench_sample(n, rng)) {
      exchange(x, client_ops, server_ops);
      client_ops.push_back(gen::mark(ops_mark));
      if (x.counted > 0) client_ops.push_back(gen::mark(bytes_mark, x.counted));
    }
    // The setup once, then the sample: once, or in a loop until the duration.
    const auto pair_task = [&](const char* role, std::vector<Step> first, std::vector<Step> ops) {
      TaskSpec t = gen::one_shot(fmt::format("{}-{}{}", name, role, i), 0, std::move(first));
      t.phases.push_back(gen::phase("ops", p.ops > 0 ? 1 : INT64_MAX, std::move(ops)));
      return gen::add_task(w, std::move(t));
    };
    client_main.push_back(
        gen::fork(pair_task("client", std::move(client_setup), std::move(client_ops))));
    server_tasks.push_back(pair_task("server", std::move(server_setup), std::move(server_ops)));
  }
  // tbench forks its clients; tbench_srv forks one server per accepted connection.
  gen::add_task(w, gen::one_shot(name, 1, std::move(client_main)));
  std::vector<Step> accept;
  for (int32_t server : server_tasks) {
    accept.push_back(Step{Op::kSemWait, 0, 1, connections, -1, false, false});
    accept.push_back(gen::fork(server));
  }
  gen::add_task(w, gen::one_shot(name + "_srv", 1, std::move(accept)));
}

}  // namespace

GeneratorInfo tbench_generator() {
  return gen::declare<TbenchParams>(
      "tbench", "dbench's tbench: client/server pairs ping-ponging over loopback", generate,
      validate);
}

}  // namespace schedlab
