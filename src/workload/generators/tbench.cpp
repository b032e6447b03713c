// tbench (the dbench package, docs/workloads/tbench.md): N client processes, each with one TCP
// connection over loopback to a server process that tbench_srv forks for it. Every
// client replays client.txt as strict request/reply exchanges, so each pair ping-pongs:
// the client computes, sends (a sync wake-up of the server) and blocks for the reply;
// the server blocks for a request, computes, and replies (a sync wake-up back).
//
// Messages are semaphores (the socket's queued data); "tbench_ops" counts exchanges and
// "tbench_bytes" the payload of both directions, so its per_second is tbench's B/s.
//
// Assumptions, not measurements: client.txt's operation mix as counted (ReadX 124k,
// NTCreateX 79k, QUERY_PATH_INFORMATION 72k, Close 58k, WriteX 40k, others 85k of
// 458,344) with small messages of 39-100 B; ReadX/WriteX data sizes drawn from 512 B
// to 64 KiB (a guess at client.txt's spread); per exchange 8 us of client and 10 us of
// server CPU plus 0.5 ns per payload byte on each side (loopback copies). Each pair
// replays its own 256-operation sample of the mix, in a loop when `ops` is -1.
#include <fmt/format.h>

#include <array>

#include "util/rng.h"
#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

#define TBENCH_PARAMS(X)                                                                  \
  X(int, clients, 8, params::range(1, 4096), "tbench 8 (E2, E4)",                         \
    "client processes, each served by its own server process")                            \
  X(int64_t, ops, -1, params::range(-1, 100'000'000), "schedlab",                         \
    "exchanges per client; -1: a 256-exchange sample in a loop until the duration")       \
  X(Time, client_ns, 8'000, params::duration(), "assumption", "client CPU per exchange")  \
  X(Time, server_ns, 10'000, params::duration(), "assumption", "server CPU per exchange") \
  X(int64_t, ps_per_byte, 500, params::range(0, 1'000'000), "assumption",                 \
    "CPU picoseconds per payload byte on each side (loopback copies)")                    \
  X(std::string, name, "tbench", params::any(), "schedlab", "prefix of the task and object names")
SCHEDLAB_DECLARE_PARAMS(TbenchParams, TBENCH_PARAMS)

void validate(const TbenchParams& p, const GeneratorContext& ctx) {
  if (p.ops == 0) gen::reject(ctx, &TbenchParams::ops, "must be positive, or -1 for no end");
}

struct Exchange {
  int64_t request_bytes, reply_bytes;
};

Exchange sample_exchange(Rng& rng) {
  // client.txt's operation counts in thousands: ReadX, NTCreateX, QUERY_PATH_INFORMATION,
  // Close, WriteX, the others (of 458,344; read in dbench 4.0's client.txt).
  constexpr std::array<int, 6> kOpCounts = {124, 79, 72, 58, 40, 85};
  // ReadX/WriteX data sizes and their weights: an assumption (client.txt's spread unread).
  constexpr std::array<int64_t, 6> kSizes = {512, 1024, 4096, 8192, 16384, 65536};
  constexpr std::array<int, 6> kSizeWeights = {15, 15, 30, 15, 15, 10};
  auto pick = [&](const auto& weights) {
    int total = 0;
    for (int w : weights) total += w;
    auto x = static_cast<int>(rng.below(static_cast<uint64_t>(total)));
    for (size_t i = 0; i < weights.size(); ++i) {
      if (x < weights[i]) return i;
      x -= weights[i];
    }
    return weights.size() - 1;
  };
  // Most messages are 39-100 B; a ReadX reply and a WriteX request carry 59 B + the data
  // (dbench 4.0); the other direction's 63 B is an assumption within 39-100 B.
  auto small = [&] { return static_cast<int64_t>(39 + rng.below(62)); };
  const size_t op = pick(kOpCounts);
  if (op == 0) return {63, 59 + kSizes[pick(kSizeWeights)]};  // ReadX
  if (op == 4) return {59 + kSizes[pick(kSizeWeights)], 63};  // WriteX
  return {small(), small()};
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
    const int64_t n = p.ops > 0 ? p.ops : 256;  // 256: an assumption, enough to mix sizes
    std::vector<Step> client_ops, server_ops;
    for (int64_t k = 0; k < n; ++k) {
      const Exchange x = sample_exchange(rng);
      const int64_t payload = x.request_bytes + x.reply_bytes;
      client_ops.push_back(gen::run(p.client_ns + payload * p.ps_per_byte / 1000));
      Step send{Op::kSemPost, 0, 1, request, -1, false, true};
      client_ops.push_back(send);
      client_ops.push_back(Step{Op::kSemWait, 0, 1, reply, -1, false, false});
      client_ops.push_back(gen::mark(ops_mark));
      client_ops.push_back(gen::mark(bytes_mark, payload));
      server_ops.push_back(Step{Op::kSemWait, 0, 1, request, -1, false, false});
      server_ops.push_back(gen::run(p.server_ns + payload * p.ps_per_byte / 1000));
      server_ops.push_back(Step{Op::kSemPost, 0, 1, reply, -1, false, true});
    }
    const int64_t repeat = p.ops > 0 ? 1 : INT64_MAX;
    TaskSpec client = gen::one_shot(fmt::format("{}-client{}", name, i), 0,
                                    {Step{Op::kSemPost, 0, 1, connections, -1, false, false}});
    Phase work;
    work.name = "ops";
    work.loop = repeat;
    work.steps = std::move(client_ops);
    client.phases.push_back(std::move(work));
    const int32_t client_task = gen::add_task(w, std::move(client));
    client_main.push_back(gen::fork(client_task));
    TaskSpec server = gen::one_shot(fmt::format("{}-server{}", name, i), 0, std::move(server_ops));
    server.phases.front().loop = repeat;
    server_tasks.push_back(gen::add_task(w, std::move(server)));
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
