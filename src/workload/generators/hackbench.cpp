// hackbench (rt-tests, WORKLOADS.md §5): `groups` groups of `fds` receivers and `fds`
// senders; every sender writes `loops` messages of `datasize` bytes to each receiver of
// its group through a socketpair (or a pipe). Workers start behind a barrier: each says
// it is ready and waits; the main task, once all are ready, starts them at once (the
// thundering herd), then reaps them all. g·f²·loops messages in all ("messages" mark).
//
// A connection is two semaphores: the messages queued and the room left in the buffer.
// A sender blocks on a full buffer, a receiver on an empty one; both wake-ups are sync
// (pipe and unix-socket writes and reads wake with wake_up_interruptible_sync).
// `threads` (-T) and processes (-P, the default) run the same program here; the choice
// matters to the host runner, and to cfs-2.6.23 through its forks_are_threads switch.
// Assumptions, not measurements: 2 us of CPU per write and per read plus 0.5 ns per byte;
// buffer room = buffer_bytes / (datasize + per-message overhead), with 163840-byte
// socket buffers (net.core.wmem_default) and 576 bytes of skb overhead per message, or
// 65536-byte pipes without overhead.
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/generators.h"

namespace schedlab {

void generate_hackbench(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int groups = 10, fds = 20;
  int64_t loops = 100, datasize = 100;
  bool pipes = false, threads = false;
  Time op_ns = 2000;
  int64_t byte_ps = 500;
  int64_t buffer_bytes = -1;
  std::string name = "hackbench";
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "groups") {
      groups = static_cast<int>(r.integer_in(v, key, 1, 1000));
    } else if (k == "fds") {
      fds = static_cast<int>(r.integer_in(v, key, 1, 1000));
    } else if (k == "loops") {
      loops = r.integer_in(v, key, 1, 100'000'000);
    } else if (k == "datasize") {
      datasize = r.integer_in(v, key, 1, 1 << 24);
    } else if (k == "mode") {
      const std::string mode = r.string(v, key);
      if (mode != "sockets" && mode != "pipes")
        r.fail(key, "unknown mode '" + mode + "' (sockets, pipes)");
      pipes = mode == "pipes";
    } else if (k == "threads") {
      threads = r.boolean(v, key);
    } else if (k == "op_ns") {
      op_ns = r.duration(v, key, 1);
    } else if (k == "ps_per_byte") {
      byte_ps = r.integer_in(v, key, 0, 1'000'000);
    } else if (k == "buffer_bytes") {
      buffer_bytes = r.integer_in(v, key, 1, INT64_MAX / 4);
    } else if (k == "name") {
      name = r.string(v, key);
    } else {
      r.fail(key,
             "unknown key (generator, groups, fds, loops, datasize, mode, threads, op_ns, "
             "ps_per_byte, buffer_bytes, name)");
    }
  }
  if (buffer_bytes < 0) buffer_bytes = pipes ? 65536 : 163840;
  const int64_t overhead = pipes ? 0 : 576;
  const int64_t room = std::max<int64_t>(1, buffer_bytes / (datasize + overhead));
  const Time msg_ns = op_ns + datasize * byte_ps / 1000;
  const int32_t messages = w.marks.intern("messages");
  const int32_t ready = w.semaphores.intern(name + ".ready");
  const int32_t start = w.counters.intern(name + ".start");
  const int32_t done = w.counters.intern(name + ".done");

  std::vector<Step> main;
  auto worker = [&](std::string task_name, std::vector<Step> body, int64_t repeat) {
    TaskSpec t = gen::one_shot(
        std::move(task_name), 0,
        {Step{Op::kSemPost, 0, 1, ready, -1, false, false}, gen::wait_progress(start, 1)});
    Phase p;
    p.name = "messages";
    p.loop = repeat;
    p.steps = std::move(body);
    t.phases.push_back(std::move(p));
    Phase end;
    end.name = "end";
    end.steps = {gen::advance(done)};
    t.phases.push_back(std::move(end));
    main.push_back(gen::fork(gen::add_task(w, std::move(t))));
  };
  for (int g = 0; g < groups; ++g) {
    std::vector<int32_t> data(fds), space(fds);
    for (int j = 0; j < fds; ++j) {
      data[j] = w.semaphores.intern(fmt::format("{}.g{}.r{}.data", name, g, j));
      space[j] = w.semaphores.intern(fmt::format("{}.g{}.r{}.room", name, g, j));
      if (w.semaphore_initial.size() < w.semaphores.size())
        w.semaphore_initial.resize(w.semaphores.size(), 0);
      w.semaphore_initial[space[j]] = room;
    }
    for (int j = 0; j < fds; ++j)  // a receiver reads loops·fds messages, one at a time
      worker(fmt::format("{}-g{}-receiver{}", name, g, j),
             {Step{Op::kSemWait, 0, 1, data[j], -1, false, false}, gen::run(msg_ns),
              Step{Op::kSemPost, 0, 1, space[j], -1, false, true}, gen::mark(messages)},
             loops * fds);
    for (int i = 0; i < fds; ++i) {  // a sender writes one message to each receiver per loop
      std::vector<Step> round;
      for (int j = 0; j < fds; ++j) {
        round.push_back(Step{Op::kSemWait, 0, 1, space[j], -1, false, false});
        round.push_back(gen::run(msg_ns));
        round.push_back(Step{Op::kSemPost, 0, 1, data[j], -1, false, true});
      }
      worker(fmt::format("{}-g{}-sender{}", name, g, i), std::move(round), loops);
    }
  }
  (void)threads;
  const int64_t workers = 2LL * groups * fds;
  main.push_back(Step{Op::kSemWait, 0, workers, ready, -1, false, false});
  main.push_back(gen::advance(start));  // wakes every worker at once
  main.push_back(gen::wait_progress(done, workers));
  gen::add_task(w, gen::one_shot(name, 1, std::move(main)));
  w.semaphore_initial.resize(w.semaphores.size(), 0);
}

}  // namespace schedlab
