// schbench (Chris Mason's wake-up latency benchmark, 2016; docs/workloads/schbench.md):
// `message_threads` each own `workers`; a message thread wakes all its workers, waits
// for them to finish, and sleeps `sleep_ns`; a worker, once woken, runs `cpu_ns` of work
// (the request) and reports back. The workers' wake-up latencies are schbench's figure:
// `wakeup_latency_ns` of the `*-worker*` tasks in `--json`; mark `requests` counts
// finished requests.
//
// Assumptions (parameters): 2 message threads of 16 workers, 10 ms of sleep and 10 ms of
// work per request (schbench's -s and -c defaults as remembered, not checked); runs until
// the duration unless `rounds` is set.
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

#define SCHBENCH_PARAMS(X)                                                            \
  X(int, message_threads, 2, params::range(1, 1024), "schbench -m (as remembered)",   \
    "message threads, each waking its own workers")                                   \
  X(int, workers, 16, params::range(1, 4096), "schbench -t (as remembered)",          \
    "workers per message thread")                                                     \
  X(int64_t, rounds, -1, params::range(-1, 1'000'000'000), "schedlab",                \
    "requests per worker; -1: until the duration")                                    \
  X(Time, sleep_ns, 10 * kNsPerMs, params::duration(), "schbench -s (as remembered)", \
    "a message thread's sleep between rounds")                                        \
  X(Time, cpu_ns, 10 * kNsPerMs, params::duration(), "schbench -c (as remembered)",   \
    "a worker's CPU per request")                                                     \
  X(std::string, name, "schbench", params::any(), "schedlab", "prefix of task and object names")
SCHEDLAB_DECLARE_PARAMS(SchbenchParams, SCHBENCH_PARAMS)

void validate(const SchbenchParams& p, const GeneratorContext& ctx) {
  if (p.rounds == 0)
    gen::reject(ctx, &SchbenchParams::rounds, "must be positive, or -1 for no end");
}

void generate(const SchbenchParams& p, const GeneratorContext&, Workload& w) {
  const std::string& name = p.name;
  const int64_t loop = p.rounds > 0 ? p.rounds : INT64_MAX;
  const int32_t requests = w.marks.intern("requests");
  for (int m = 0; m < p.message_threads; ++m) {
    const int32_t done = w.semaphores.intern(fmt::format("{}.{}.done", name, m));
    std::vector<Step> message;
    for (int k = 0; k < p.workers; ++k) {
      const int32_t wake = w.semaphores.intern(fmt::format("{}.{}.{}", name, m, k));
      message.push_back(Step{Op::kSemPost, 0, 1, wake, -1, false, false});
      TaskSpec worker =
          gen::one_shot(fmt::format("{}-worker{}-{}", name, m, k), 1,
                        {Step{Op::kSemWait, 0, 1, wake, -1, false, false}, gen::run(p.cpu_ns),
                         gen::mark(requests), Step{Op::kSemPost, 0, 1, done, -1, false, false}});
      worker.phases.front().loop = loop;
      gen::add_task(w, std::move(worker));
    }
    message.push_back(Step{Op::kSemWait, 0, p.workers, done, -1, false, false});
    message.push_back(gen::sleep_for(p.sleep_ns));
    TaskSpec t = gen::one_shot(fmt::format("{}-message{}", name, m), 1, std::move(message));
    t.phases.front().loop = loop;
    gen::add_task(w, std::move(t));
  }
}

}  // namespace

GeneratorInfo schbench_generator() {
  return gen::declare<SchbenchParams>(
      "schbench", "schbench (2016): message threads waking workers; their wake-up latency",
      generate, validate);
}

}  // namespace schedlab
