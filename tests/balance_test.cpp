// The one balancer over a hand-made class: two CPUs, one domain of two single-CPU groups
// (power 1024 each, imbalance_pct 125, load index 0), and CPU 1 going idle. The rules of
// two releases give different pulls from the same queues, computed by hand below.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "policy/balance/balancer.h"

namespace schedlab {
namespace {

using balance::Movable;
using balance::MovePass;

// A class's queues reduced to what the balancer sees: per CPU, a list of tasks (weight
// 1024 each, none cache hot), the first one running when the CPU has a current task.
class ToyQueues final : public balance::MovableTasks {
 public:
  struct Queue {
    int64_t weight = 0;
    int nr_running = 0;
    std::vector<Task*> tasks;  // in the order the balancer should try them
  };
  explicit ToyQueues(int cpus) : queues_(static_cast<size_t>(cpus)) {}
  void add(CpuId cpu, Task& t) {
    Queue& q = queues_[cpu];
    q.tasks.push_back(&t);
    q.weight += 1024;
    ++q.nr_running;
    t.cpu = cpu;
  }
  void move(Task& t, CpuId to) {
    Queue& from = queues_[t.cpu];
    std::erase(from.tasks, &t);
    from.weight -= 1024;
    --from.nr_running;
    add(to, t);
  }
  const Queue& queue(CpuId cpu) const { return queues_[cpu]; }

  std::vector<balance::LoadRef> load_refs() const override {
    std::vector<balance::LoadRef> refs;
    for (const Queue& q : queues_) refs.push_back({&q.weight, &q.nr_running});
    return refs;
  }
  MovePass move_from(CpuId cpu, MovePass pass) override {
    const std::vector<Task*> tasks = queues_[cpu].tasks;  // a pull changes the list
    for (Task* t : tasks)
      if (!pass.visit({t, 1024, 0, t->on_cpu, false, false, 0})) break;
    return pass;
  }

 private:
  std::vector<Queue> queues_;
};

class ToyContext final : public SchedContext {
 public:
  ToyContext(const Machine& m, ToyQueues& q) : queues_(&q) {
    machine_ = &m;
    tick_ns_ = m.tick_ns();
    cpu_curr_.assign(static_cast<size_t>(m.cpus), nullptr);
    idle_cpus_ = all_cpus(m.cpus);
  }
  void resched(CpuId) override {}
  bool resched_pending(CpuId) const override { return false; }
  void migrate_queued(Task& t, CpuId to, uint32_t) override {
    queues_->move(t, to);
    pulled.push_back(t.name);
  }
  void run(CpuId cpu, Task* t) {
    cpu_curr_[cpu] = t;
    idle_cpus_.set(static_cast<size_t>(cpu), t == nullptr);
    if (t) t->on_cpu = true;
  }
  std::vector<std::string> pulled;

 private:
  ToyQueues* queues_;
};

struct TwoCpus {
  explicit TwoCpus(const balance::Rules& rules)
      : machine(make_machine(2)),
        queues(2),
        ctx(machine, queues),
        balancer(rules, {{.level = balance::Level::kCpu,
                          .flags = balance::kSdLoadBalance | balance::kSdBalanceNewidle,
                          .cache_nice_tries = 1}}) {
    balancer.attach(ctx, queues);
  }
  Task& task(const std::string& name, SchedPolicy policy = SchedPolicy::kOther) {
    Task& t = tasks.emplace_back();
    t.id = static_cast<TaskId>(tasks.size() - 1);
    t.name = name;
    t.policy = policy;
    t.allowed = all_cpus(2);
    t.nr_cpus_allowed = 2;
    t.runnable = true;
    return t;
  }
  Machine machine;
  ToyQueues queues;
  ToyContext ctx;
  balance::Balancer balancer;
  std::deque<Task> tasks;
};

// CPU 0 runs A and queues B and C (3072); CPU 1 is idle. Average load (3072 + 0) / 2 =
// 1536; the busiest's load per task 1024; imbalance = min(3072 - 1536, 1536 - 0) = 1536.
// A runs, so it stays. 2.6.31 skips a task only when half its weight exceeds what is left:
// B (512 <= 1536) moves, leaving 512; C (512 <= 512) moves too. 2.6.22 skips a task whose
// whole weight exceeds what is left: B moves, C (1024 > 512) stays.
TEST(Balancer, HalfAWeightOrAllOfItDecidesHowManyTasksANewIdleCpuPulls) {
  balance::Rules rules_2631;
  balance::Rules rules_2622;
  rules_2622.skip_for_load = balance::SkipForLoad::kWeightUnlessBestPrio;
  rules_2622.keep_one_task = true;
  const std::pair<const balance::Rules*, std::vector<std::string>> cases[] = {
      {&rules_2631, {"B", "C"}}, {&rules_2622, {"B"}}};
  for (const auto& [rules, pulled] : cases) {
    TwoCpus m(*rules);
    Task& a = m.task("A");
    m.queues.add(0, a);
    m.queues.add(0, m.task("B"));
    m.queues.add(0, m.task("C"));
    m.ctx.run(0, &a);
    m.balancer.idle_balance(1);
    EXPECT_EQ(m.ctx.pulled, pulled);
    EXPECT_EQ(m.queues.queue(1).nr_running, static_cast<int>(pulled.size()));
  }
}

// CPU 0 runs an RT task and queues one fair task B (1024); CPU 1 is idle. 2.6.31 counts
// the RT task in rq->nr_running: CPU 0 holds 2 > its capacity of 1, average 512, load per
// task 1024 / 2 = 512, imbalance min(1024 - 512, 512 - 0) = 512, and B (half weight 512
// <= 512) moves. The 2.6.22 model counts the class's tasks only: 1 task is within
// capacity, so CPU 0 is not the busiest and nothing moves.
TEST(Balancer, AnRtTaskRunningCountsInNrRunningFrom2631) {
  for (const bool count_other_classes : {true, false}) {
    balance::Rules rules;
    rules.count_other_classes = count_other_classes;
    TwoCpus m(rules);
    Task& rt = m.task("rt", SchedPolicy::kFifo);
    m.queues.add(0, m.task("B"));
    m.ctx.run(0, &rt);
    EXPECT_EQ(m.balancer.nr_running(0), count_other_classes ? 2 : 1);
    m.balancer.idle_balance(1);
    EXPECT_EQ(m.ctx.pulled,
              count_other_classes ? std::vector<std::string>{"B"} : std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace schedlab
