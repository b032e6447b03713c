// hackbench (rt-tests, docs/workloads/hackbench.md): `groups` groups of `fds` receivers and `fds`
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
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

#define HACKBENCH_PARAMS(X)                                                                    \
  X(int, groups, 10, params::range(1, 1000), "hackbench -g (rt-tests)",                        \
    "groups of `fds` receivers and `fds` senders")                                             \
  X(int, fds, 20, params::range(1, 1000), "hackbench -f", "receivers (and senders) per group") \
  X(int64_t, loops, 100, params::range(1, 100'000'000), "hackbench -l",                        \
    "messages each sender writes to each receiver of its group")                               \
  X(int64_t, datasize, 100, params::range(1, 1 << 24), "hackbench -s", "bytes per message")    \
  X(std::string, mode, "sockets", params::one_of({"sockets", "pipes"}), "hackbench -p",        \
    "connections are socketpairs or pipes")                                                    \
  X(bool, threads, false, params::any(), "hackbench -T",                                       \
    "threads rather than processes: the same program here; the host runner and "               \
    "cfs-2.6.23's forks_are_threads tell them apart")                                          \
  X(Time, op_ns, 2000, params::duration(), "assumption", "CPU per write and per read")         \
  X(int64_t, ps_per_byte, 500, params::range(0, 1'000'000), "assumption",                      \
    "CPU picoseconds per message byte, per write and per read")                                \
  X(int64_t, buffer_bytes, -1,                                                                 \
    params::range(1, static_cast<double>(INT64_MAX / 4)).or_word("auto", -1),                  \
    "net.core.wmem_default; pipe size",                                                        \
    "a connection's buffer; auto: 163840 for sockets, 65536 for pipes")                        \
  X(std::string, name, "hackbench", params::any(), "schedlab", "prefix of task and object names")
SCHEDLAB_DECLARE_PARAMS(HackbenchParams, HACKBENCH_PARAMS)

constexpr int64_t kSocketBufferBytes = 163840;  // net.core.wmem_default of the era's kernels
constexpr int64_t kPipeBufferBytes = 65536;     // a pipe's 16 pages
constexpr int64_t kSkbOverheadBytes = 576;      // per queued socket message: an assumption

// One connection's queue: the messages in it and the room left, in messages.
struct Connection {
  int32_t data, room;
};

// The start barrier: workers post `ready` and wait for `start`; each counts `done` at its end.
struct Barrier {
  int32_t ready, start, done;
};

// A worker says it is ready, waits for the start, runs `body` `repeat` times, and ends;
// the main task forks it.
void add_worker(std::string task_name, std::vector<Step> body, int64_t repeat, const Barrier& b,
                std::vector<Step>& main, Workload& w) {
  TaskSpec t = gen::one_shot(
      std::move(task_name), 0,
      {Step{Op::kSemPost, 0, 1, b.ready, -1, false, false}, gen::wait_progress(b.start, 1)});
  t.phases.push_back(gen::phase("messages", repeat, std::move(body)));
  t.phases.push_back(gen::phase("end", 1, {gen::advance(b.done)}));
  main.push_back(gen::fork(gen::add_task(w, std::move(t))));
}

void generate(const HackbenchParams& p, const GeneratorContext&, Workload& w) {
  const bool pipes = p.mode == "pipes";
  const std::string& name = p.name;
  const int64_t buffer_bytes = p.buffer_bytes >= 0 ? p.buffer_bytes
                               : pipes             ? kPipeBufferBytes
                                                   : kSocketBufferBytes;
  const int64_t overhead = pipes ? 0 : kSkbOverheadBytes;
  const int64_t room = std::max<int64_t>(1, buffer_bytes / (p.datasize + overhead));
  const Time msg_ns = p.op_ns + p.datasize * p.ps_per_byte / 1000;
  const int32_t messages = w.marks.intern("messages");
  const Barrier barrier{w.semaphores.intern(name + ".ready"), w.counters.intern(name + ".start"),
                        w.counters.intern(name + ".done")};
  std::vector<Step> main;
  auto worker = [&](std::string task_name, std::vector<Step> body, int64_t repeat) {
    add_worker(std::move(task_name), std::move(body), repeat, barrier, main, w);
  };
  for (int g = 0; g < p.groups; ++g) {
    std::vector<Connection> to(static_cast<size_t>(p.fds));
    for (int j = 0; j < p.fds; ++j) {
      to[j].data = w.semaphores.intern(fmt::format("{}.g{}.r{}.data", name, g, j));
      to[j].room = w.semaphores.intern(fmt::format("{}.g{}.r{}.room", name, g, j));
      if (w.semaphore_initial.size() < w.semaphores.size())
        w.semaphore_initial.resize(w.semaphores.size(), 0);
      w.semaphore_initial[to[j].room] = room;
    }
    for (int j = 0; j < p.fds; ++j)  // a receiver reads loops·fds messages, one at a time
      worker(fmt::format("{}-g{}-receiver{}", name, g, j),
             {Step{Op::kSemWait, 0, 1, to[j].data, -1, false, false}, gen::run(msg_ns),
              Step{Op::kSemPost, 0, 1, to[j].room, -1, false, true}, gen::mark(messages)},
             p.loops * p.fds);
    for (int i = 0; i < p.fds; ++i) {  // a sender writes one message to each receiver per loop
      std::vector<Step> round;
      for (int j = 0; j < p.fds; ++j) {
        round.push_back(Step{Op::kSemWait, 0, 1, to[j].room, -1, false, false});
        round.push_back(gen::run(msg_ns));
        round.push_back(Step{Op::kSemPost, 0, 1, to[j].data, -1, false, true});
      }
      worker(fmt::format("{}-g{}-sender{}", name, g, i), std::move(round), p.loops);
    }
  }
  const int64_t workers = 2LL * p.groups * p.fds;
  main.push_back(Step{Op::kSemWait, 0, workers, barrier.ready, -1, false, false});
  main.push_back(gen::advance(barrier.start));  // wakes every worker at once
  main.push_back(gen::wait_progress(barrier.done, workers));
  gen::add_task(w, gen::one_shot(name, 1, std::move(main)));
  w.semaphore_initial.resize(w.semaphores.size(), 0);
}

}  // namespace

GeneratorInfo hackbench_generator() {
  return gen::declare<HackbenchParams>(
      "hackbench", "rt-tests hackbench: groups of senders and receivers over sockets or pipes",
      generate);
}

}  // namespace schedlab
