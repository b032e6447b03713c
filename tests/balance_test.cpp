// The one balancer over a hand-made class: two CPUs, one domain of two single-CPU groups
// (power 1024 each, imbalance_pct 125, load index 0), and CPU 1 going idle. The rules of
// two releases give different pulls from the same queues, computed by hand below. Then
// the walk that reads groups of one CPU as CPU numbers against the walk over their masks,
// on random queues.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>
#include <vector>

#include "policy/balance/balancer.h"
#include "util/rng.h"

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
  void add(CpuId cpu, Task& t, int64_t weight = 1024) {
    Queue& q = queues_[cpu];
    q.tasks.push_back(&t);
    q.weight += weight;
    ++q.nr_running;
    t.cpu = cpu;
    weights_[&t] = weight;
  }
  void move(Task& t, CpuId to) {
    Queue& from = queues_[t.cpu];
    const int64_t weight = weights_[&t];
    std::erase(from.tasks, &t);
    from.weight -= weight;
    --from.nr_running;
    add(to, t, weight);
  }
  const Queue& queue(CpuId cpu) const { return queues_[cpu]; }
  const CpuMask& crowded_cpus() const override {
    crowded_ = all_cpus(static_cast<int>(queues_.size())).reset();
    for (size_t c = 0; c < queues_.size(); ++c)
      if (queues_[c].nr_running >= 2) crowded_.set(c);
    return crowded_;
  }

  std::vector<balance::LoadRef> load_refs() const override {
    std::vector<balance::LoadRef> refs;
    for (const Queue& q : queues_) refs.push_back({&q.weight, &q.nr_running});
    return refs;
  }
  MovePass move_from(CpuId cpu, MovePass pass) override {
    const std::vector<Task*> tasks = queues_[cpu].tasks;  // a pull changes the list
    for (Task* t : tasks)
      if (!pass.visit({t, weights_.at(t), 0, t->on_cpu, false, false, 0, buddies.contains(t)}))
        break;
    return pass;
  }
  std::set<const Task*> buddies;  // next or last buddies of their queue (CACHE_HOT_BUDDY)

 private:
  std::vector<Queue> queues_;
  std::map<const Task*, int64_t> weights_;
  mutable CpuMask crowded_;
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
  void set_now(Time t) { now_ = t; }
  void run(CpuId cpu, Task* t) {
    if (cpu_curr_[cpu]) cpu_curr_[cpu]->on_cpu = false;
    set_curr(cpu, t);
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
  // CPU 0 runs A and queues B and C; CPU 1 is idle. Returns A.
  Task& crowd_cpu0() {
    Task& a = task("A");
    queues.add(0, a);
    queues.add(0, task("B"));
    queues.add(0, task("C"));
    ctx.run(0, &a);
    return a;
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
    m.crowd_cpu0();
    m.balancer.idle_balance(1);
    EXPECT_EQ(m.ctx.pulled, pulled);
    EXPECT_EQ(m.queues.queue(1).nr_running, static_cast<int>(pulled.size()));
  }
}

// 6.x's rd->overload gate. CPU 0 runs A with B and C queued, but the balancer has not been
// told of a second task there, so the newly idle CPU 1 does not look (no walk, nothing
// pulled); told of them (add_nr_running), it pulls B and C as 2.6.31 would. Then, with
// A on CPU 0 and B on CPU 1 after a mark, a periodic balance at the root domain finds no
// CPU running two and clears it: CPU 1, idle again, does not look.
TEST(Balancer, From6xANewIdleCpuLooksOnlyWhileSomeQueueHasHadTwoTasks) {
  balance::Rules rules;
  rules.overload_gate = true;
  {
    TwoCpus m(rules);
    m.crowd_cpu0();
    m.balancer.idle_balance(1);
    EXPECT_TRUE(m.ctx.pulled.empty());
    EXPECT_EQ(m.balancer.newidle_walks(), 0u);
    m.balancer.note_enqueued(0);
    m.balancer.idle_balance(1);
    EXPECT_EQ(m.ctx.pulled, (std::vector<std::string>{"B", "C"}));
    EXPECT_EQ(m.balancer.newidle_walks(), 1u);
  }
  TwoCpus m(rules);
  Task& a = m.task("A");
  Task& b = m.task("B");
  m.queues.add(0, a);
  m.queues.add(0, b);
  m.ctx.run(0, &a);
  m.balancer.note_enqueued(0);  // two on CPU 0: marked
  m.queues.move(b, 1);
  m.ctx.run(1, &b);
  m.ctx.set_now(10'000'000'000);  // past any busy interval
  m.balancer.tick(0);             // the root domain's balance: one task per CPU, the mark cleared
  m.ctx.run(1, nullptr);
  m.balancer.idle_balance(1);
  EXPECT_EQ(m.balancer.newidle_walks(), 0u);
  m.balancer.note_enqueued(0);  // one task there: no mark
  m.balancer.idle_balance(1);
  EXPECT_EQ(m.balancer.newidle_walks(), 0u);
}

// As above, with B its queue's buddy. -tip of October 2009 (and 2.6.31) hold a buddy cache
// hot whatever the queues, so the newly idle CPU 1 passes B over and pulls C (half weight
// 512 <= 1536), leaving 1024 that no task on CPU 0 (A runs) can fill. 2.6.32's f685ceac
// asks this_rq()->nr_running, 6.x dst_rq->nr_running: both are CPU 1, idle, so B is
// not hot and B and C move.
TEST(Balancer, ABuddyIsCacheHotForAnIdlePullerOnlyBefore2632) {
  const std::pair<balance::HotBuddyRq, std::vector<std::string>> cases[] = {
      {balance::HotBuddyRq::kAny, {"C"}},
      {balance::HotBuddyRq::kThisRq, {"B", "C"}},
      {balance::HotBuddyRq::kDstRq, {"B", "C"}}};
  for (const auto& [hot_buddy_rq, pulled] : cases) {
    balance::Rules rules;
    rules.hot_buddy_rq = hot_buddy_rq;
    TwoCpus m(rules);
    m.crowd_cpu0();
    m.queues.buddies.insert(&m.tasks[1]);  // B
    m.balancer.idle_balance(1);
    EXPECT_EQ(m.ctx.pulled, pulled) << static_cast<int>(hot_buddy_rq);
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

// One random run of the balancer's hooks on a machine of `cpus` CPUs (flat, or SMT pairs
// under caches of 8), with random task weights, running tasks and pinned tasks; the log
// has every pull, fork placement and queue length, in order.
// `sparse`: fewer tasks than CPUs, spread over all of them, a fifth of them FIFO (counted
// beside the class's by nr_running), so that a domain often has no CPU running two.
std::vector<std::string> random_balancing(uint64_t seed, int cpus, bool smt, int rules_kind,
                                          bool cpu_numbers, int* pulls, bool sparse = false,
                                          uint64_t* shortcuts = nullptr) {
  Rng rng(seed);
  Machine machine = make_machine(cpus);
  if (smt)
    for (CpuId c = 0; c < cpus; ++c) {
      machine.core_of[c] = c / 2;
      machine.llc_of[c] = c / 8;
    }
  balance::Rules rules;
  if (rules_kind == 1) {  // 2.6.32's differences
    rules.group_power = balance::GroupPower::kSumOfCpus;
    rules.round_capacity = true;
    rules.prefer_sibling = true;
  } else if (rules_kind == 2) {  // 2.6.22's
    rules.group_imbalance = false;
    rules.small_imbalance_2622 = true;
    rules.lb_bias = false;
    rules.newidle_2622 = true;
  }
  std::vector<balance::DomainTemplate> levels = balance::sibling_mc_cpu_levels(
      balance::kSdLoadBalance | balance::kSdBalanceNewidle | balance::kSdBalanceFork |
      (rules_kind == 1 ? balance::kSdPreferSibling : 0u));
  for (balance::DomainTemplate& t : levels) {  // every load index, busy CPUs balancing often
    t.busy_idx = static_cast<int>(rng.below(3));
    t.idle_idx = static_cast<int>(rng.below(3));
    t.newidle_idx = static_cast<int>(rng.below(3));
    t.forkexec_idx = static_cast<int>(rng.below(3));
    t.busy_factor = 1 + static_cast<int>(rng.below(2));
  }
  ToyQueues queues(cpus);
  ToyContext ctx(machine, queues);
  balance::Balancer balancer(rules, levels);
  balancer.attach(ctx, queues);
  balancer.set_cpu_number_groups(cpu_numbers);
  std::deque<Task> tasks;
  const int64_t weights[] = {1024, 1024, 335, 3121, 15, 88761};
  for (int i = 0; i < (sparse ? cpus * 2 / 3 : cpus * 3 / 2); ++i) {
    Task& t = tasks.emplace_back();
    t.id = static_cast<TaskId>(i);
    t.name = fmt::format("t{}", i);
    t.runnable = true;
    t.allowed = all_cpus(cpus);
    if (rng.below(5) == 0) {  // pinned to a few CPUs
      t.allowed.reset();
      for (int k = 0; k < 3; ++k) t.allowed.set(rng.below(static_cast<uint64_t>(cpus)));
    }
    t.nr_cpus_allowed = static_cast<int>(t.allowed.count());
    if (sparse && rng.below(5) == 0) t.policy = SchedPolicy::kFifo;
    // Crowded on the low CPUs, so that there is something to balance.
    const auto cpu =
        static_cast<CpuId>(rng.below(static_cast<uint64_t>(sparse ? cpus : cpus / 3)));
    queues.add(cpu, t, weights[rng.below(6)]);
  }
  std::vector<std::string> log;
  Time now = 0;
  for (int step = 0; step < 600; ++step) {
    now += static_cast<Time>(rng.below(3'000'000));
    ctx.set_now(now);
    const auto cpu = static_cast<CpuId>(rng.below(static_cast<uint64_t>(cpus)));
    const auto& q = queues.queue(cpu).tasks;
    switch (rng.below(5)) {
      case 0:  // the CPU runs its first queued task, or idles
        ctx.run(cpu, q.empty() ? nullptr : q.front());
        break;
      case 1:
        if (ctx.curr(cpu)) balancer.tick(cpu);
        break;
      case 2:
        if (!ctx.curr(cpu)) balancer.idle_balance(cpu);
        break;
      case 3: {
        Task& t = tasks[rng.below(tasks.size())];
        log.push_back(fmt::format("fork {} -> {}", t.name, balancer.balance_fork(t, cpu)));
        break;
      }
      default:
        balancer.active_balance(cpu);
    }
    for (const std::string& name : ctx.pulled) log.push_back(fmt::format("pulled {}", name));
    *pulls += static_cast<int>(ctx.pulled.size());
    ctx.pulled.clear();
    log.push_back(fmt::format("{}: {}", cpu, queues.queue(cpu).nr_running));
  }
  if (shortcuts) *shortcuts += balancer.shortcuts();
  return log;
}

// The CPU-number walk (the lowest level's groups, and on the flat machine every level's)
// gives the mask walk's pulls and placements, event for event.
TEST(Balancer, GroupsOfOneCpuReadAsCpuNumbersBalanceAsTheirMasks) {
  int pulls = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    const int cpus = seed % 3 == 0 ? 300 : 40;  // 300: masks past the 256 inline CPUs
    const bool smt = seed % 2 == 0;
    const int rules_kind = static_cast<int>(seed / 2 % 3);
    int unused = 0;
    EXPECT_EQ(random_balancing(seed, cpus, smt, rules_kind, true, &pulls),
              random_balancing(seed, cpus, smt, rules_kind, false, &unused))
        << "seed " << seed;
  }
  EXPECT_GT(pulls, 500);  // the runs balance
}

// Fewer tasks than CPUs: the CPU-number walk also finds, without reading the CPUs, that no
// group can be the busiest when no CPU of the domain runs two tasks (none_can_be_busiest);
// the mask walk reads them all. Same pulls and placements, event for event.
TEST(Balancer, ADomainWithoutACpuRunningTwoTasksIsBalancedWithoutReadingItsCpus) {
  int pulls = 0;
  uint64_t shortcuts = 0, none = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    const int cpus = seed % 3 == 0 ? 300 : 40;
    const bool smt = seed % 2 == 0;
    const int rules_kind = static_cast<int>(seed / 2 % 3);
    int unused = 0;
    EXPECT_EQ(random_balancing(seed, cpus, smt, rules_kind, true, &pulls, true, &shortcuts),
              random_balancing(seed, cpus, smt, rules_kind, false, &unused, true, &none))
        << "seed " << seed;
  }
  EXPECT_EQ(none, 0u);         // the mask walk never takes the shortcut
  EXPECT_GT(shortcuts, 200u);  // the other often does (417 times)
  EXPECT_GT(pulls, 50);        // and the runs still balance
}

}  // namespace
}  // namespace schedlab
