// O(1) of 2.6.22 across CPUs: wake-up placement (try_to_wake_up's affine wake-ups), the
// cpu_load[] averages, and load_balance() with find_busiest_group / find_busiest_queue /
// move_tasks, new-idle balancing and the migration thread's active balance.
#include <algorithm>

#include "policy/o1/o1.h"

namespace schedlab::o1 {

using cfs::Domain;

namespace {
constexpr int64_t kLoadScale = 1024;  // SCHED_LOAD_SCALE
constexpr int kMaxPinnedInterval = 512;

template <typename F>
void for_each_cpu(const CpuMask& m, F&& f) {
  for (size_t c = m._Find_first(); c < m.size(); c = m._Find_next(c)) f(static_cast<CpuId>(c));
}
}  // namespace

int64_t O1::source_load(CpuId cpu, int idx) const {
  const RunQueue& rq = rq_[cpu];
  return idx == 0 ? rq.raw_weighted_load : std::min(rq.cpu_load[idx - 1], rq.raw_weighted_load);
}

int64_t O1::target_load(CpuId cpu, int idx) const {
  const RunQueue& rq = rq_[cpu];
  return idx == 0 ? rq.raw_weighted_load : std::max(rq.cpu_load[idx - 1], rq.raw_weighted_load);
}

int64_t O1::cpu_avg_load_per_task(CpuId cpu) const {
  const RunQueue& rq = rq_[cpu];
  return rq.nr_running ? rq.raw_weighted_load / rq.nr_running : kLoadScale;
}

// update_load(): cpu_load[i] decays towards the current load by 1/2^i per tick.
void O1::update_load(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  for (int i = 0, scale = 1; i < 3; ++i, scale += scale) {
    int64_t new_load = rq.raw_weighted_load;
    if (new_load > rq.cpu_load[i]) new_load += scale - 1;
    rq.cpu_load[i] = (rq.cpu_load[i] * (scale - 1) + new_load) >> i;
  }
}

// try_to_wake_up(): a task woken by another CPU moves to the waker's CPU when that is
// cache-cold for it and not unbalanced (SD_WAKE_AFFINE); sync wake-ups discount the
// waker. Unsigned arithmetic as in the kernel.
CpuId O1::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  CpuId cpu = prev;
  if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed._Find_first());
  if (how.kind == WakeKind::kFork) {  // no SD_BALANCE_FORK: the parent's CPU
    const CpuId parent = how.waker_cpu;
    return parent != kNoCpu && t.allowed_on(parent) ? parent : cpu;
  }
  const CpuId this_cpu = how.waker_cpu;
  if (how.kind != WakeKind::kWakeup || how.waker == kNoTask || this_cpu == kNoCpu ||
      this_cpu == cpu || !t.allowed_on(this_cpu))
    return cpu;
  const Domain* this_sd = nullptr;
  for (const Domain& sd : rq_[this_cpu].domains)
    if (sd.span.test(static_cast<size_t>(cpu))) {
      this_sd = &sd;
      break;
    }
  if (!this_sd || !this_sd->has(cfs::kSdWakeAffine)) return cpu;
  const int idx = this_sd->t.wake_idx;
  const uint64_t imbalance = 100 + (this_sd->t.imbalance_pct - 100) / 2;
  const auto load = static_cast<uint64_t>(source_load(cpu, idx));
  uint64_t tl = static_cast<uint64_t>(target_load(this_cpu, idx));
  const auto tl_per_task = static_cast<uint64_t>(cpu_avg_load_per_task(this_cpu));
  if (how.sync && how.waker != kNoTask && static_cast<size_t>(how.waker) < se_.size() &&
      se_[how.waker].task)
    tl -= static_cast<uint64_t>(se_[how.waker].load_weight);
  const auto weight = static_cast<uint64_t>(se_[t.id].load_weight);
  if ((tl <= load && tl + static_cast<uint64_t>(target_load(cpu, idx)) <= tl_per_task) ||
      100 * (tl + weight) <= imbalance * load)
    return this_cpu;
  return cpu;
}

bool O1::task_hot(const Entity& e, const Domain&) const {
  return ctx_->now() - e.last_ran < tun_.cache_hot_time_ns;
}

// can_migrate_task(): allowed here, not running, and cache-cold unless balancing keeps
// failing.
bool O1::can_migrate(const Entity& e, CpuId src, CpuId this_cpu, const Domain& sd,
                     bool* all_pinned) const {
  if (!e.task->allowed_on(this_cpu)) return false;
  *all_pinned = false;
  if (rq_[src].curr == e.task->id || ctx_->curr(src) == e.task) return false;
  if (sd.nr_balance_failed > sd.t.cache_nice_tries) return true;
  return !task_hot(e, sd);
}

// move_tasks(): expired tasks first (cache-cold, not running soon), best priority first,
// from the tail of each list; a task heavier than what is left to move is skipped unless
// it would be the best priority on this CPU.
int O1::move_tasks(CpuId this_cpu, CpuId busiest, int max_nr_move, int64_t max_load_move,
                   const Domain& sd, bool* all_pinned) {
  if (max_nr_move <= 0 || max_load_move <= 0) return 0;
  RunQueue& src = rq_[busiest];
  RunQueue& dst = rq_[this_cpu];
  auto best_prio = [&](const RunQueue& rq) {
    int best = rq.best_expired_prio;
    if (rq.curr != kNoTask) best = std::min(best, se_[rq.curr].prio);
    return best;
  };
  int64_t rem_load_move = max_load_move;
  bool pinned = true;
  int this_best_prio = best_prio(dst);
  const int busiest_best_prio = best_prio(src);
  bool best_prio_seen = src.curr != kNoTask && busiest_best_prio == se_[src.curr].prio;
  int pulled = 0;
  const int expired = src.active ^ 1;
  for (int array : {expired, src.active}) {
    if (array == expired && src.arrays[expired].nr_active == 0) continue;
    for (int level = 0; level < kLevels; ++level) {
      const int idx = level + kMaxRtPrio;
      TaskId id = src.arrays[array].queue[level].tail;
      while (id != kNoTask) {
        Entity& e = se_[id];
        const TaskId prev_in_list = e.links.prev;
        bool skip_for_load = e.load_weight > rem_load_move;
        if (skip_for_load && idx < this_best_prio)
          skip_for_load = !best_prio_seen && idx == busiest_best_prio;
        if (skip_for_load || !can_migrate(e, busiest, this_cpu, sd, &pinned)) {
          best_prio_seen |= idx == busiest_best_prio;
          id = prev_in_list;
          continue;
        }
        // pull_task(): to the same array here; preempts if better
        ctx_->migrate_queued(*e.task, this_cpu, e.array != src.active ? kToExpired : 0);
        ++pulled;
        rem_load_move -= e.load_weight;
        if (pulled >= max_nr_move || rem_load_move <= 0) {
          if (all_pinned) *all_pinned = pinned;
          return pulled;
        }
        this_best_prio = std::min(this_best_prio, idx);
        id = prev_in_list;
      }
    }
  }
  if (all_pinned) *all_pinned = pinned;
  return pulled;
}

// find_busiest_group(): the busiest group by cpu_load[] over the domain, and how much
// weighted load to move (with the small-imbalance rule). -1 when balanced.
int O1::find_busiest_group(CpuId this_cpu, Domain& sd, IdleType idle, const CpuMask& cpus,
                           bool* balance, int64_t* imbalance) const {
  *imbalance = 0;
  const int load_idx = idle == IdleType::kNotIdle     ? sd.t.busy_idx
                       : idle == IdleType::kNewlyIdle ? sd.t.newidle_idx
                                                      : sd.t.idle_idx;
  int64_t max_load = 0, this_load = 0, total_load = 0, total_pwr = 0;
  int64_t busiest_load_per_task = 0, busiest_nr_running = 0;
  int64_t this_load_per_task = 0, this_nr_running = 0;
  int busiest = -1, this_group = -1;
  for (size_t g = 0; g < sd.groups.size(); ++g) {
    const CpuMask& group = sd.groups[g];
    const bool local = group.test(static_cast<size_t>(this_cpu));
    CpuId balance_cpu = local ? static_cast<CpuId>(group._Find_first()) : kNoCpu;
    bool first_idle = false;
    int64_t avg_load = 0, sum_nr_running = 0, sum_weighted_load = 0;
    for_each_cpu(group & cpus, [&](CpuId i) {
      int64_t load;
      if (local) {
        if (!ctx_->curr(i) && !first_idle) {
          first_idle = true;
          balance_cpu = i;
        }
        load = target_load(i, load_idx);
      } else {
        load = source_load(i, load_idx);
      }
      avg_load += load;
      sum_nr_running += rq_[i].nr_running;
      sum_weighted_load += rq_[i].raw_weighted_load;
    });
    if (local && balance_cpu != this_cpu && balance) {
      *balance = false;
      return -1;
    }
    const int64_t power = sd.group_power[g];
    total_load += avg_load;
    total_pwr += power;
    avg_load = avg_load * kLoadScale / power;
    const int64_t capacity = power / kLoadScale;
    if (local) {
      this_load = avg_load;
      this_group = static_cast<int>(g);
      this_nr_running = sum_nr_running;
      this_load_per_task = sum_weighted_load;
    } else if (avg_load > max_load && sum_nr_running > capacity) {
      max_load = avg_load;
      busiest = static_cast<int>(g);
      busiest_nr_running = sum_nr_running;
      busiest_load_per_task = sum_weighted_load;
    }
  }
  if (busiest < 0 || this_group < 0 || this_load >= max_load || busiest_nr_running == 0) return -1;
  const int64_t avg_load = kLoadScale * total_load / total_pwr;
  if (this_load >= avg_load || 100 * max_load <= sd.t.imbalance_pct * this_load) return -1;
  busiest_load_per_task /= busiest_nr_running;
  if (max_load <= busiest_load_per_task) return -1;
  const int64_t busiest_power = sd.group_power[busiest];
  const int64_t this_power = sd.group_power[this_group];
  auto small_imbalance = [&]() -> int {
    int64_t imbn = 2;
    if (this_nr_running) {
      this_load_per_task /= this_nr_running;
      if (busiest_load_per_task > this_load_per_task) imbn = 1;
    } else {
      this_load_per_task = kLoadScale;
    }
    if (max_load - this_load >= busiest_load_per_task * imbn) {
      *imbalance = busiest_load_per_task;
      return busiest;
    }
    int64_t pwr_now = busiest_power * std::min(busiest_load_per_task, max_load) +
                      this_power * std::min(this_load_per_task, this_load);
    pwr_now /= kLoadScale;
    int64_t tmp = busiest_load_per_task * kLoadScale / busiest_power;
    int64_t pwr_move = 0;
    if (max_load > tmp) pwr_move += busiest_power * std::min(busiest_load_per_task, max_load - tmp);
    if (max_load * busiest_power < busiest_load_per_task * kLoadScale)
      tmp = max_load * busiest_power / this_power;
    else
      tmp = busiest_load_per_task * kLoadScale / this_power;
    pwr_move += this_power * std::min(this_load_per_task, this_load + tmp);
    pwr_move /= kLoadScale;
    if (pwr_move <= pwr_now) {
      *imbalance = 0;
      return -1;
    }
    *imbalance = busiest_load_per_task;
    return busiest;
  };
  if (max_load < avg_load) return small_imbalance();
  const int64_t max_pull = std::min(max_load - avg_load, max_load - busiest_load_per_task);
  *imbalance = std::min(max_pull * busiest_power, (avg_load - this_load) * this_power) / kLoadScale;
  if (*imbalance < busiest_load_per_task) return small_imbalance();
  return busiest;
}

CpuId O1::find_busiest_queue(const Domain& sd, int group, int64_t imbalance,
                             const CpuMask& cpus) const {
  CpuId busiest = kNoCpu;
  int64_t max_load = 0;
  for_each_cpu(sd.groups[group] & cpus, [&](CpuId i) {
    const RunQueue& rq = rq_[i];
    if (rq.nr_running == 1 && rq.raw_weighted_load > imbalance) return;
    if (rq.raw_weighted_load > max_load) {
      max_load = rq.raw_weighted_load;
      busiest = i;
    }
  });
  return busiest;
}

// load_balance(): pull from the busiest queue; after repeated failures kick its
// migration thread (active balance) and back off.
int O1::load_balance(CpuId this_cpu, Domain& sd, IdleType idle, bool* balance) {
  CpuMask cpus = all_cpus(ctx_->cpus());
  bool all_pinned = false;
  for (;;) {
    int64_t imbalance = 0;
    const int group = find_busiest_group(this_cpu, sd, idle, cpus, balance, &imbalance);
    if (!*balance || group < 0) break;
    const CpuId busiest = find_busiest_queue(sd, group, imbalance, cpus);
    if (busiest == kNoCpu) break;
    int nr_moved = 0;
    if (rq_[busiest].nr_running > 1) {
      nr_moved =
          move_tasks(this_cpu, busiest, rq_[busiest].nr_running - 1, imbalance, sd, &all_pinned);
      if (all_pinned) {
        cpus.reset(static_cast<size_t>(busiest));
        if (cpus.any()) continue;
        break;
      }
    }
    bool active_balance = false;
    if (!nr_moved) {
      ++sd.nr_balance_failed;
      if (sd.nr_balance_failed > sd.t.cache_nice_tries + 2) {
        const Task* running = ctx_->curr(busiest);
        if (running && !running->allowed_on(this_cpu)) {
          all_pinned = true;
          if (sd.balance_interval_ms < kMaxPinnedInterval) sd.balance_interval_ms *= 2;
          return 0;
        }
        RunQueue& b = rq_[busiest];
        if (!b.active_balance) {
          b.active_balance = true;
          b.push_cpu = this_cpu;
          active_balance = true;
          ctx_->resched(busiest);  // wake_up_process(migration thread)
        }
        sd.nr_balance_failed = sd.t.cache_nice_tries + 1;
      }
    } else {
      sd.nr_balance_failed = 0;
    }
    if (!active_balance)
      sd.balance_interval_ms = sd.t.min_interval_ms;
    else if (sd.balance_interval_ms < sd.t.max_interval_ms)
      sd.balance_interval_ms *= 2;
    return nr_moved;
  }
  sd.nr_balance_failed = 0;
  if ((all_pinned && sd.balance_interval_ms < kMaxPinnedInterval) ||
      sd.balance_interval_ms < sd.t.max_interval_ms)
    sd.balance_interval_ms *= 2;
  return 0;
}

// load_balance_newidle(): the same from a CPU about to idle, trying every busy CPU.
int O1::load_balance_newidle(CpuId this_cpu, Domain& sd) {
  CpuMask cpus = all_cpus(ctx_->cpus());
  for (;;) {
    int64_t imbalance = 0;
    const int group =
        find_busiest_group(this_cpu, sd, IdleType::kNewlyIdle, cpus, nullptr, &imbalance);
    if (group < 0) break;
    const CpuId busiest = find_busiest_queue(sd, group, imbalance, cpus);
    if (busiest == kNoCpu) break;
    int nr_moved = 0;
    if (rq_[busiest].nr_running > 1) {
      nr_moved = move_tasks(this_cpu, busiest, rq_[busiest].nr_running - 1, imbalance, sd, nullptr);
      if (!nr_moved) {
        cpus.reset(static_cast<size_t>(busiest));
        if (cpus.any()) continue;
      }
    }
    if (nr_moved) sd.nr_balance_failed = 0;
    return nr_moved;
  }
  sd.nr_balance_failed = 0;
  return 0;
}

void O1::idle_balance(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  const int64_t hz = ctx_->machine().hz;
  int64_t next_balance = jiffies() + 60 * hz;
  int pulled = 0;
  for (Domain& sd : rq.domains) {
    if (!sd.has(cfs::kSdBalanceNewidle)) continue;
    pulled = load_balance_newidle(cpu, sd);
    next_balance =
        std::min(next_balance, sd.last_balance_jiffy + sd.balance_interval_ms * hz / 1000);
    if (pulled) break;
  }
  if (!pulled) rq.next_balance = next_balance;
}

// rebalance_domains(): each domain whose interval (times busy_factor on a busy CPU) has
// passed is balanced, bottom up.
void O1::rebalance_domains(CpuId cpu, IdleType idle) {
  RunQueue& rq = rq_[cpu];
  const int64_t now = jiffies();
  const int64_t hz = ctx_->machine().hz;
  int64_t next_balance = now + 60 * hz;
  bool balance = true;
  for (Domain& sd : rq.domains) {
    if (!sd.has(cfs::kSdLoadBalance)) continue;
    int64_t interval = sd.balance_interval_ms;
    if (idle != IdleType::kIdle) interval *= sd.t.busy_factor;
    interval = std::max<int64_t>(1, interval * hz / 1000);
    if (now >= sd.last_balance_jiffy + interval) {
      if (load_balance(cpu, sd, idle, &balance)) idle = IdleType::kNotIdle;
      sd.last_balance_jiffy = now;
    }
    next_balance = std::min(next_balance, sd.last_balance_jiffy + interval);
    if (!balance) break;
  }
  rq.next_balance = next_balance;
}

// scheduler_tick()'s update_load() and trigger_load_balance(); the idle CPUs, whose
// ticks are stopped, are balanced from the first busy tick of each jiffy (the NO_HZ idle
// load balancer).
void O1::tick_balance(CpuId cpu) {
  update_load(cpu);
  const int64_t now = jiffies();
  if (now >= rq_[cpu].next_balance)
    rebalance_domains(cpu, ctx_->curr(cpu) ? IdleType::kNotIdle : IdleType::kIdle);
  if (now == ilb_jiffy_) return;
  ilb_jiffy_ = now;
  for (CpuId c = 0; c < ctx_->cpus(); ++c) {
    if (ctx_->curr(c) || !ctx_->idle(c)) continue;
    if (now >= rq_[c].next_balance) rebalance_domains(c, IdleType::kIdle);
  }
}

// active_load_balance(), run by the busiest CPU's migration thread: the task that was
// running is queued again, so one task can move to the CPU that asked.
void O1::balance(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (!rq.active_balance) return;
  rq.active_balance = false;
  const CpuId target = rq.push_cpu;
  if (rq.nr_running <= 1 || target == kNoCpu) return;
  for (Domain& sd : rq_[target].domains)
    if (sd.has(cfs::kSdLoadBalance) && sd.span.test(static_cast<size_t>(cpu))) {
      move_tasks(target, cpu, 1, kLoadScale * 1000, sd, nullptr);
      return;
    }
}

// 2.6.23's SD_*_INIT without SD_WAKE_IDLE (x86 without SMT had no wake_idle).
std::vector<cfs::DomainTemplate> domains_2622() {
  const uint32_t common =
      cfs::kSdLoadBalance | cfs::kSdBalanceNewidle | cfs::kSdBalanceExec | cfs::kSdWakeAffine;
  return {{cfs::Level::kSmt, common | cfs::kSdShareCpupower, 1, 2, 64, 110, 0, 0, 0, 0, 0, 0},
          {cfs::Level::kMc, common | cfs::kSdSharePkgResources, 1, 4, 64, 125, 1, 2, 0, 0, 1, 1},
          {cfs::Level::kCpu, common, 1, 4, 64, 125, 1, 2, 0, 0, 1, 1}};
}

PolicyInfo o1_policy_info() {
  return {"o1",
          "O(1) of Linux 2.6.22: active/expired arrays, sleep_avg bonus, interactivity",
          {{"cache_hot_time_ns", 2'500'000, false,
            "a task that ran this recently is cache hot (calibrated at boot by 2.6.22)"},
           {"starvation_limit_ms", 1000, false,
            "STARVATION_LIMIT per runnable task before interactive tasks expire too (0: off)"}},
          [](const ParamValues& p) {
            Tunables t;
            t.cache_hot_time_ns = p.get("cache_hot_time_ns");
            t.starvation_limit_ms = p.get("starvation_limit_ms");
            t.domains = domains_2622();
            return std::make_unique<O1>(std::move(t));
          }};
}

}  // namespace schedlab::o1
