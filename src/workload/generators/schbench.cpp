// schbench (Chris Mason's wake-up latency benchmark, 2016; WORKLOADS.md §5):
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
#include "workload/generators/generators.h"

namespace schedlab {

void generate_schbench(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int message_threads = 2, workers = 16;
  int64_t rounds = -1;
  Time sleep_ns = 10 * kNsPerMs, cpu_ns = 10 * kNsPerMs;
  std::string name = "schbench";
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "message_threads")
      message_threads = static_cast<int>(r.integer_in(v, key, 1, 1024));
    else if (k == "workers")
      workers = static_cast<int>(r.integer_in(v, key, 1, 4096));
    else if (k == "rounds")
      rounds = r.integer_in(v, key, -1, 1'000'000'000);
    else if (k == "sleep_ns")
      sleep_ns = r.duration(v, key, 1);
    else if (k == "cpu_ns")
      cpu_ns = r.duration(v, key, 1);
    else if (k == "name")
      name = r.string(v, key);
    else
      r.fail(key,
             "unknown key (generator, message_threads, workers, rounds, sleep_ns, cpu_ns, name)");
  }
  if (rounds == 0) r.fail(ctx.key + ".rounds", "must be positive, or -1 for no end");
  const int64_t loop = rounds > 0 ? rounds : INT64_MAX;
  const int32_t requests = w.marks.intern("requests");
  for (int m = 0; m < message_threads; ++m) {
    const int32_t done = w.semaphores.intern(fmt::format("{}.{}.done", name, m));
    std::vector<Step> message;
    for (int k = 0; k < workers; ++k) {
      const int32_t wake = w.semaphores.intern(fmt::format("{}.{}.{}", name, m, k));
      message.push_back(Step{Op::kSemPost, 0, 1, wake, -1, false, false});
      TaskSpec worker =
          gen::one_shot(fmt::format("{}-worker{}-{}", name, m, k), 1,
                        {Step{Op::kSemWait, 0, 1, wake, -1, false, false}, gen::run(cpu_ns),
                         gen::mark(requests), Step{Op::kSemPost, 0, 1, done, -1, false, false}});
      worker.phases.front().loop = loop;
      gen::add_task(w, std::move(worker));
    }
    message.push_back(Step{Op::kSemWait, 0, workers, done, -1, false, false});
    message.push_back(gen::sleep_for(sleep_ns));
    TaskSpec t = gen::one_shot(fmt::format("{}-message{}", name, m), 1, std::move(message));
    t.phases.front().loop = loop;
    gen::add_task(w, std::move(t));
  }
}

}  // namespace schedlab
