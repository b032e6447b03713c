// The invariant checker: rules every policy and the engine must keep. On in every test,
// behind --check-invariants elsewhere. A broken rule stops the run with InvariantError.
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/engine.h"
#include "util/error.h"

namespace schedlab {

void Engine::violation(const std::string& what) const {
  throw InvariantError(
      fmt::format("invariant broken at {} ns under '{}': {}", now_, options_.policy_name, what));
}

void Engine::check_pick(CpuId cpu, const Task* next) const {
  if (!next->runnable) violation(fmt::format("picked {}, which is not runnable", next->name));
  if (!next->queued) violation(fmt::format("picked {}, which was not queued", next->name));
  if (next->on_cpu && cpu_curr_[cpu] != next)
    violation(
        fmt::format("picked {} on CPU {} while it runs on CPU {}", next->name, cpu, next->cpu));
}

// Every runnable task is either running on exactly one CPU or queued; no CPU runs a
// task that is not marked as running there.
void Engine::check_all_accounted() const {
  for (const auto& cls : stack_.classes)
    if (std::string problem = cls->check_invariants(); !problem.empty()) violation(problem);
  int running = 0;
  for (const Task& t : tasks_) {
    if (execs_[t.id].exited) {
      if (t.on_cpu && cpu_curr_[t.cpu] != &t)
        violation(fmt::format("exited {} marked on a CPU", t.name));
      continue;
    }
    if (t.on_cpu) {
      ++running;
      if (cpu_curr_[t.cpu] != &t)
        violation(fmt::format("{} marked running on CPU {} but is not there", t.name, t.cpu));
      if (!t.allowed_on(t.cpu))
        violation(fmt::format("{} runs on CPU {} outside its affinity", t.name, t.cpu));
    } else if (t.runnable && !t.queued) {
      violation(fmt::format("runnable task {} is neither running nor queued (lost)", t.name));
    } else if (!t.runnable && t.queued) {
      violation(fmt::format("blocked task {} is still queued", t.name));
    }
  }
  for (size_t l = 0; l < sync_.spinlocks.size(); ++l) {
    const SpinLockState& lock = sync_.spinlocks[l];
    if (lock.owner != kNoTask &&
        std::find(lock.spinners.begin(), lock.spinners.end(), lock.owner) != lock.spinners.end())
      violation(fmt::format("{} holds spinlock '{}' and is listed as spinning for it",
                            tasks_[lock.owner].name, workload_.spinlocks.names[l]));
  }
  // The current tasks sorted, so that a task current on two CPUs sits next to itself
  // (linear in the CPUs up to the sort, where comparing every pair was quadratic).
  std::vector<std::pair<const Task*, CpuId>> current;
  for (CpuId c = 0; c < machine_ref_.cpus; ++c)
    if (cpu_curr_[c]) current.emplace_back(cpu_curr_[c], c);
  std::sort(current.begin(), current.end());
  for (size_t i = 1; i < current.size(); ++i)
    if (current[i].first == current[i - 1].first)
      violation(fmt::format("{} runs on CPUs {} and {} at once", current[i].first->name,
                            current[i - 1].second, current[i].second));
  if (static_cast<int>(current.size()) < running)
    violation("more tasks marked running than busy CPUs");
}

// CPU time is conserved to the nanosecond: task time + switch overhead + idle time
// equals CPUs x elapsed time.
void Engine::check_conservation(Time end) const {
  Int128 total = 0;
  for (const Task& t : tasks_) total += t.sum_exec_ns;
  for (const Cpu& c : cpus_) total += c.overhead_ns + c.idle_ns;
  const Int128 expected = static_cast<Int128>(end) * machine_ref_.cpus;
  if (total != expected)
    violation(fmt::format("CPU time not conserved: accounted {} ns, expected {} ns",
                          static_cast<int64_t>(total), static_cast<int64_t>(expected)));
}

}  // namespace schedlab
