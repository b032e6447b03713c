// tbench (the dbench package, WORKLOADS.md §2): N client processes, each with one TCP
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
#include "workload/generators/generators.h"

namespace schedlab {
namespace {

struct Exchange {
  int64_t request_bytes, reply_bytes;
};

Exchange sample_exchange(Rng& rng) {
  constexpr std::array<int, 6> kOpCounts = {124, 79, 72, 58, 40, 85};  // thousands
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
  auto small = [&] { return static_cast<int64_t>(39 + rng.below(62)); };
  const size_t op = pick(kOpCounts);
  if (op == 0) return {63, 59 + kSizes[pick(kSizeWeights)]};  // ReadX
  if (op == 4) return {59 + kSizes[pick(kSizeWeights)], 63};  // WriteX
  return {small(), small()};
}

}  // namespace

void generate_tbench(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int clients = 8;
  int64_t ops = -1;
  Time client_ns = 8000, server_ns = 10000;
  int64_t byte_ps = 500;  // CPU picoseconds per payload byte, each side
  std::string name = "tbench";
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "clients")
      clients = static_cast<int>(r.integer_in(v, key, 1, 4096));
    else if (k == "ops")
      ops = r.integer_in(v, key, -1, 100'000'000);
    else if (k == "client_ns")
      client_ns = r.duration(v, key, 1);
    else if (k == "server_ns")
      server_ns = r.duration(v, key, 1);
    else if (k == "ps_per_byte")
      byte_ps = r.integer_in(v, key, 0, 1'000'000);
    else if (k == "name")
      name = r.string(v, key);
    else
      r.fail(key, "unknown key (generator, clients, ops, client_ns, server_ns, ps_per_byte, name)");
  }
  if (ops == 0) r.fail(ctx.key + ".ops", "must be positive, or -1 for no end");
  const int32_t ops_mark = w.marks.intern("tbench_ops");
  const int32_t bytes_mark = w.marks.intern("tbench_bytes");
  const int32_t connections = w.semaphores.intern(name + ".connections");
  Rng rng(ctx.seed ^ 0x7462656e6368ULL);  // "tbench"

  std::vector<int32_t> server_tasks;
  std::vector<Step> client_main;
  for (int i = 0; i < clients; ++i) {
    const int32_t request = w.semaphores.intern(fmt::format("{}.{}.request", name, i));
    const int32_t reply = w.semaphores.intern(fmt::format("{}.{}.reply", name, i));
    const int64_t n = ops > 0 ? ops : 256;
    std::vector<Step> client_ops, server_ops;
    for (int64_t k = 0; k < n; ++k) {
      const Exchange x = sample_exchange(rng);
      const int64_t payload = x.request_bytes + x.reply_bytes;
      client_ops.push_back(gen::run(client_ns + payload * byte_ps / 1000));
      Step send{Op::kSemPost, 0, 1, request, -1, false, true};
      client_ops.push_back(send);
      client_ops.push_back(Step{Op::kSemWait, 0, 1, reply, -1, false, false});
      client_ops.push_back(gen::mark(ops_mark));
      client_ops.push_back(gen::mark(bytes_mark, payload));
      server_ops.push_back(Step{Op::kSemWait, 0, 1, request, -1, false, false});
      server_ops.push_back(gen::run(server_ns + payload * byte_ps / 1000));
      server_ops.push_back(Step{Op::kSemPost, 0, 1, reply, -1, false, true});
    }
    const int64_t repeat = ops > 0 ? 1 : INT64_MAX;
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

}  // namespace schedlab
