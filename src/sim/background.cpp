#include "sim/background.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "util/rng.h"

namespace schedlab {

namespace {

// Pairs per task: enough for the horizon, within a memory bound for big machines.
constexpr int64_t kMaxPairs = 4096;
constexpr int64_t kMaxStepsPerMachine = 1 << 20;

std::string task_name(const std::string& pattern, CpuId cpu) {
  std::string name = pattern;
  const std::string key = "{cpu}";
  for (size_t at = name.find(key); at != std::string::npos; at = name.find(key, at))
    name.replace(at, key.size(), std::to_string(cpu));
  return name;
}

// An exponentially distributed draw of the given mean, in whole ns, at least 1.
Time exponential(Rng& rng, double mean_ns) {
  const double x = -std::log1p(-rng.unit()) * mean_ns;
  return std::max<Time>(1, static_cast<Time>(std::llround(std::min(x, 1e15))));
}

std::vector<CpuId> source_cpus(const BackgroundSource& s, int machine_cpus) {
  std::vector<CpuId> cpus;
  if (!s.cpus) {
    for (CpuId c = 0; c < machine_cpus; ++c) cpus.push_back(c);
  } else {
    for (int c : *s.cpus)  // after --cpus shrank the machine, CPUs beyond it are dropped
      if (c < machine_cpus) cpus.push_back(c);
  }
  return cpus;
}

TaskSpec noise_task(const BackgroundSource& s, CpuId cpu, uint64_t seed, int64_t pairs) {
  TaskSpec t;
  t.name = task_name(s.name, cpu);
  t.background = true;
  t.cpus = std::vector<int>{cpu};
  t.loop = -1;
  if (s.policy == "SCHED_FIFO") {
    t.sched.policy = SchedPolicy::kFifo;
    t.sched.rt_priority = s.priority;
  } else {
    t.sched.nice = s.priority;
  }
  Rng rng(seed);
  const double gap_mean = 1e9 / s.rate_hz;
  const Time burst_max = s.burst_max_ns > 0 ? s.burst_max_ns : 10 * s.burst_ns;
  auto burst = [&] {
    return std::min<Time>(burst_max, exponential(rng, static_cast<double>(s.burst_ns)));
  };
  t.delay_ns = exponential(rng, gap_mean);  // the first arrival
  Phase p;
  p.name = "noise";
  for (int64_t i = 0; i < pairs; ++i) {
    p.steps.push_back(Step{Op::kRun, burst()});
    p.steps.push_back(Step{Op::kSleep, exponential(rng, gap_mean)});
  }
  t.phases.push_back(std::move(p));
  return t;
}

}  // namespace

bool has_background(const Machine& m) {
  for (const BackgroundSource& s : m.background)
    if (s.rate_hz > 0 && !source_cpus(s, m.cpus).empty()) return true;
  return false;
}

Workload with_background(const Workload& workload, const Machine& m, uint64_t seed,
                         Time horizon_ns) {
  Workload w = workload;
  int64_t tasks = 0;
  for (const BackgroundSource& s : m.background)
    if (s.rate_hz > 0) tasks += static_cast<int64_t>(source_cpus(s, m.cpus).size());
  const int64_t per_task =
      std::max<int64_t>(16, kMaxStepsPerMachine / 2 / std::max<int64_t>(1, tasks));
  for (size_t i = 0; i < m.background.size(); ++i) {
    const BackgroundSource& s = m.background[i];
    if (s.rate_hz <= 0) continue;
    const double wanted = s.rate_hz * static_cast<double>(horizon_ns) / 1e9 + 1;
    const int64_t pairs =
        std::min({kMaxPairs, per_task, static_cast<int64_t>(std::min(wanted, 1e9))});
    for (CpuId cpu : source_cpus(s, m.cpus)) {
      // splitmix inside Rng spreads these: one stream per run seed, source and CPU
      const uint64_t stream = seed * 0x100000001b3ULL ^ (i << 32) ^ static_cast<uint64_t>(cpu);
      w.tasks.push_back(noise_task(s, cpu, stream, std::max<int64_t>(1, pairs)));
    }
  }
  return w;
}

}  // namespace schedlab
