// CFS load balancing of 2.6.31 / 2.6.32, after kernel/sched.c: cpu_load[] averages,
// fork balancing (sched_balance_self / select_task_rq_fair with SD_BALANCE_FORK),
// periodic balancing (rebalance_domains, load_balance, find_busiest_group,
// calculate_imbalance, fix_small_imbalance, find_busiest_queue, move_tasks), new-idle
// balancing (idle_balance; 2.6.32 rate-limits it by avg_idle) and active balancing by
// the migration thread.
//
// Judgement, not in the source: idle CPUs are balanced once per jiffy from the first
// busy CPU's tick, standing in for the NO_HZ idle load balancer (the engine does not tick
// idle CPUs), and an idle CPU's cpu_load[] decays as if it had ticked with no load.
// HZ*NR_CPUS/10 caps the interval with NR_CPUS = 64. Power-savings balancing is off.
#include <algorithm>

#include "policy/cfs/cfs.h"

namespace schedlab::cfs {

namespace {
constexpr int kMaxPinnedInterval = 512;
constexpr int kNrCpusConfig = 64;
}  // namespace

int64_t Cfs::msecs_to_jiffies(int64_t ms) const {
  const int64_t hz = ctx_->machine().hz;
  return (ms * hz + 999) / 1000;
}

// update_cpu_load(): cpu_load[i] = (old * (2^i - 1) + new) / 2^i, rounded up while rising.
// Ticks a CPU missed while idle count with the load it has now (none, being idle).
void Cfs::sync_cpu_load(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  const int64_t now = jiffies();
  int64_t missed = std::min<int64_t>(now - rq.load_jiffy, 1024);
  rq.load_jiffy = now;
  const int64_t this_load = rq.load.weight;
  for (; missed > 0; --missed) {
    bool settled = true;
    for (int i = 0; i < 5; ++i) {
      const int64_t scale = int64_t{1} << i;
      const int64_t old_load = rq.cpu_load[i];
      int64_t new_load = this_load;
      if (new_load > old_load && !era23()) new_load += scale - 1;  // 2.6.23 did not round
      rq.cpu_load[i] = (old_load * (scale - 1) + new_load) >> i;
      settled = settled && rq.cpu_load[i] == this_load;
    }
    if (settled) break;
  }
}

// source_load / target_load: a low and a high guess of a CPU's load, mixing the average
// of index idx with the instantaneous weight (LB_BIAS).
int64_t Cfs::source_load(CpuId cpu, int idx) {
  const int64_t total = weighted_cpuload(cpu);
  if (idx == 0 || !cfg_.feat.lb_bias) return total;
  sync_cpu_load(cpu);
  return std::min(rq_[cpu].cpu_load[idx - 1], total);
}

int64_t Cfs::target_load(CpuId cpu, int idx) {
  const int64_t total = weighted_cpuload(cpu);
  if (idx == 0 || !cfg_.feat.lb_bias) return total;
  sync_cpu_load(cpu);
  return std::max(rq_[cpu].cpu_load[idx - 1], total);
}

int64_t Cfs::cpu_avg_load_per_task(CpuId cpu) const {
  const RunQueue& rq = rq_[cpu];
  return rq.nr_running ? rq.load.weight / rq.nr_running : 0;
}

// ---------------------------------------------------------------- fork balancing

// find_idlest_group(): the least loaded group, if it beats this CPU's group by half the
// domain's imbalance_pct.
int Cfs::find_idlest_group(const Domain& sd, const Task& p, CpuId this_cpu, int idx) {
  int idlest = -1;
  int64_t min_load = INT64_MAX, this_load = 0;
  const int64_t imbalance = 100 + (sd.t.imbalance_pct - 100) / 2;
  for (size_t g = 0; g < sd.groups.size(); ++g) {
    const CpuMask& group = sd.groups[g];
    if ((group & p.allowed).none()) continue;
    const bool local = group.test(static_cast<size_t>(this_cpu));
    int64_t avg_load = 0;
    for_each_cpu(group,
                 [&](CpuId i) { avg_load += local ? source_load(i, idx) : target_load(i, idx); });
    avg_load = avg_load * kNice0Load / sd.group_power[g];
    if (local) {
      this_load = avg_load;
    } else if (avg_load < min_load) {
      min_load = avg_load;
      idlest = static_cast<int>(g);
    }
  }
  if (idlest < 0 || 100 * this_load < imbalance * min_load) return -1;
  return idlest;
}

CpuId Cfs::find_idlest_cpu(const CpuMask& group, const Task& p, CpuId this_cpu) const {
  int64_t min_load = INT64_MAX;
  CpuId idlest = kNoCpu;
  for_each_cpu(group & p.allowed, [&](CpuId i) {
    const int64_t load = weighted_cpuload(i);
    if (load < min_load || (load == min_load && i == this_cpu)) {
      min_load = load;
      idlest = i;
    }
  });
  return idlest;
}

// sched_balance_self(cpu, SD_BALANCE_FORK) of 2.6.31, the fork branch of 2.6.32's
// select_task_rq_fair: from the widest SD_BALANCE_FORK domain down, move to the idlest
// group's idlest CPU.
CpuId Cfs::balance_fork(Task& p, CpuId cpu) {
  auto domains_of_cpu = [&](CpuId c) -> std::vector<Domain>& { return rq_[c].domains; };
  int level = -1;  // index into cpu's domains
  for (size_t i = 0; i < domains_of_cpu(cpu).size(); ++i)
    if (domains_of_cpu(cpu)[i].has(kSdBalanceFork)) level = static_cast<int>(i);
  while (level >= 0) {
    const Domain& sd = domains_of_cpu(cpu)[level];
    if (!sd.has(kSdBalanceFork)) {
      --level;
      continue;
    }
    const int group = find_idlest_group(sd, p, cpu, sd.t.forkexec_idx);
    if (group < 0) {
      --level;
      continue;
    }
    const CpuId new_cpu = find_idlest_cpu(sd.groups[group], p, cpu);
    if (new_cpu == kNoCpu || new_cpu == cpu) {
      --level;
      continue;
    }
    // Continue on new_cpu, below the span just balanced.
    const size_t weight = sd.span.count();
    cpu = new_cpu;
    level = -1;
    const auto& nd = domains_of_cpu(cpu);
    for (size_t i = 0; i < nd.size(); ++i) {
      if (weight <= nd[i].span.count()) break;
      if (nd[i].has(kSdBalanceFork)) level = static_cast<int>(i);
    }
  }
  return cpu;
}

// ---------------------------------------------------------------- moving tasks

// task_hot(): a buddy, or a task that ran within migration_cost, keeps its cache warm.
bool Cfs::task_hot(const Entity& e, const Domain*) const {
  if (era23()) return false;  // 2.6.23's can_migrate_task has no cache-hot test
  const RunQueue& rq = rq_[e.task->cpu];
  if (cfg_.feat.cache_hot_buddy && (rq.next == e.task->id || rq.last == e.task->id)) return true;
  if (tun_.migration_cost == 0) return false;
  return ctx_->now() - e.exec_start < tun_.migration_cost;
}

bool Cfs::can_migrate_task(Entity& e, CpuId, CpuId this_cpu, const Domain& sd,
                           bool* all_pinned) const {
  if (e.sched_delayed) return false;  // EEVDF 6.12: not runnable, only still queued
  if (!e.task->allowed_on(this_cpu)) return false;
  *all_pinned = false;
  if (e.task->on_cpu || rq_[e.task->cpu].curr == e.task->id) return false;
  return !task_hot(e, &sd) || sd.nr_balance_failed > sd.t.cache_nice_tries;
}

void Cfs::pull_task(Entity& e, CpuId this_cpu) {
  ctx_->migrate_queued(*e.task, this_cpu);
}

// move_tasks() / balance_tasks(): walk the busiest queue's task list (newest first) and
// pull tasks until max_load_move of weight has moved.
int64_t Cfs::move_tasks(CpuId this_cpu, CpuId busiest, int64_t max_load_move, const Domain& sd,
                        bool* all_pinned) {
  *all_pinned = true;
  if (max_load_move <= 0) return 0;
  int64_t rem_load_move = max_load_move;
  int loops = 0;
  TaskId id = rq_[busiest].tasks_head;
  while (id != kNoTask && loops++ <= tun_.nr_migrate) {
    Entity& e = se_[id];
    const TaskId next = e.list_next;  // pre-iterate: pulling unlinks e
    if ((e.load.weight >> 1) > rem_load_move ||
        !can_migrate_task(e, busiest, this_cpu, sd, all_pinned)) {
      id = next;
      continue;
    }
    pull_task(e, this_cpu);
    rem_load_move -= e.load.weight;
    if (rem_load_move <= 0) break;
    id = next;
  }
  return max_load_move - rem_load_move;
}

// ---------------------------------------------------------------- periodic balancing

// find_busiest_group() with update_sd_lb_stats, update_sg_lb_stats, calculate_imbalance
// and fix_small_imbalance. Returns the busiest group's index, or -1 when balanced.
int Cfs::find_busiest_group(CpuId this_cpu, Domain& sd, IdleType idle, const CpuMask& cpus,
                            bool* balance, bool* sd_idle, int64_t* imbalance) {
  *imbalance = 0;
  const int load_idx = idle == IdleType::kNotIdle     ? sd.t.busy_idx
                       : idle == IdleType::kNewlyIdle ? sd.t.newidle_idx
                                                      : sd.t.idle_idx;
  // 2.6.32: groups below an SD_PREFER_SIBLING level hold one task each before spilling.
  bool prefer_sibling = false;
  if (balance32()) {
    const auto& doms = rq_[this_cpu].domains;
    for (size_t i = 1; i < doms.size(); ++i)
      if (&doms[i] == &sd) prefer_sibling = doms[i - 1].has(kSdPreferSibling);
  }
  int64_t total_load = 0, total_pwr = 0;
  int64_t this_load = 0, this_nr_running = 0, this_load_per_task = 0;
  int busiest = -1;
  int64_t max_load = 0, busiest_nr_running = 0, busiest_load_per_task = 0;
  bool group_imb_busiest = false;
  int this_group = -1;
  for (size_t g = 0; g < sd.groups.size(); ++g) {
    const CpuMask& group = sd.groups[g];
    const bool local = group.test(static_cast<size_t>(this_cpu));
    int64_t group_load = 0, sum_nr_running = 0, sum_weighted_load = 0, sum_avg_per_task = 0;
    int64_t max_cpu_load = 0, min_cpu_load = INT64_MAX;
    CpuId balance_cpu = local ? static_cast<CpuId>(group._Find_first()) : kNoCpu;
    bool first_idle = false;
    for_each_cpu(group & cpus, [&](CpuId i) {
      if (*sd_idle && all_running(i)) *sd_idle = false;
      int64_t load;
      if (local) {
        if (!ctx_->curr(i) && !first_idle) {
          first_idle = true;
          balance_cpu = i;
        }
        load = target_load(i, load_idx);
      } else {
        load = source_load(i, load_idx);
        max_cpu_load = std::max(max_cpu_load, load);
        min_cpu_load = std::min(min_cpu_load, load);
      }
      group_load += load;
      sum_nr_running += all_running(i);
      sum_weighted_load += weighted_cpuload(i);
      sum_avg_per_task += cpu_avg_load_per_task(i);
    });
    // Only one CPU of the local group balances this domain: its first idle CPU, else its
    // first CPU.
    if (idle != IdleType::kNewlyIdle && local && balance_cpu != this_cpu && balance) {
      *balance = false;
      return -1;
    }
    const int64_t power = sd.group_power[g];
    const int64_t avg_load = group_load * kNice0Load / power;
    const int64_t avg_load_per_task = sum_avg_per_task * kNice0Load / power;
    const bool group_imb =
        !local && min_cpu_load != INT64_MAX && max_cpu_load - min_cpu_load > 2 * avg_load_per_task;
    int64_t capacity = balance32() ? (power + kNice0Load / 2) / kNice0Load : power / kNice0Load;
    if (prefer_sibling) capacity = std::min<int64_t>(capacity, 1);
    total_load += group_load;
    total_pwr += power;
    if (local) {
      this_group = static_cast<int>(g);
      this_load = avg_load;
      this_nr_running = sum_nr_running;
      this_load_per_task = sum_weighted_load;
    } else if (avg_load > max_load && (sum_nr_running > capacity || group_imb)) {
      max_load = avg_load;
      busiest = static_cast<int>(g);
      busiest_nr_running = sum_nr_running;
      busiest_load_per_task = sum_weighted_load;
      group_imb_busiest = group_imb;
    }
  }
  if (busiest < 0 || busiest_nr_running == 0 || this_group < 0) return -1;
  if (this_load >= max_load) return -1;
  const int64_t avg_load = kNice0Load * total_load / total_pwr;
  if (this_load >= avg_load) return -1;
  if (100 * max_load <= sd.t.imbalance_pct * this_load) return -1;
  busiest_load_per_task /= busiest_nr_running;
  if (group_imb_busiest) busiest_load_per_task = std::min(busiest_load_per_task, avg_load);
  if (max_load <= busiest_load_per_task) return -1;

  const int64_t busiest_power = sd.group_power[busiest];
  const int64_t this_power = sd.group_power[this_group];
  // fix_small_imbalance(): move one task if that improves the combined throughput.
  auto fix_small_imbalance = [&] {
    int64_t imbn = 2;
    if (this_nr_running) {
      this_load_per_task /= this_nr_running;
      if (busiest_load_per_task > this_load_per_task) imbn = 1;
    } else {
      this_load_per_task = cpu_avg_load_per_task(this_cpu);
    }
    if (max_load - this_load + busiest_load_per_task >= busiest_load_per_task * imbn) {
      *imbalance = busiest_load_per_task;
      return;
    }
    int64_t pwr_now = busiest_power * std::min(busiest_load_per_task, max_load) +
                      this_power * std::min(this_load_per_task, this_load);
    pwr_now /= kNice0Load;
    int64_t tmp = busiest_load_per_task * kNice0Load / busiest_power;
    int64_t pwr_move = 0;
    if (max_load > tmp) pwr_move += busiest_power * std::min(busiest_load_per_task, max_load - tmp);
    if (max_load * busiest_power < busiest_load_per_task * kNice0Load)
      tmp = max_load * busiest_power / this_power;
    else
      tmp = busiest_load_per_task * kNice0Load / this_power;
    pwr_move += this_power * std::min(this_load_per_task, this_load + tmp);
    pwr_move /= kNice0Load;
    if (pwr_move > pwr_now) *imbalance = busiest_load_per_task;
  };
  // calculate_imbalance(): pull the busiest down to the average, or this group up to it.
  if (max_load < avg_load) {
    *imbalance = 0;
    fix_small_imbalance();
    return busiest;
  }
  const int64_t max_pull = std::min(max_load - avg_load, max_load - busiest_load_per_task);
  *imbalance = std::min(max_pull * busiest_power, (avg_load - this_load) * this_power) / kNice0Load;
  if (*imbalance < busiest_load_per_task) fix_small_imbalance();
  return busiest;
}

CpuId Cfs::find_busiest_queue(const Domain& sd, int group, int64_t imbalance,
                              const CpuMask& cpus) const {
  CpuId busiest = kNoCpu;
  int64_t max_load = 0;
  for_each_cpu(sd.groups[group] & cpus, [&](CpuId i) {
    const int64_t wl = weighted_cpuload(i);  // power is one CPU's (ARCH_POWER off)
    // A lone task heavier than the imbalance would only move the imbalance elsewhere.
    if (all_running(i) == 1 && wl > imbalance) return;
    if (wl > max_load) {
      max_load = wl;
      busiest = i;
    }
  });
  return busiest;
}

// load_balance(): pull from the busiest queue of the busiest group; after repeated
// failures, ask the busiest CPU's migration thread to push its running task over.
int Cfs::load_balance(CpuId this_cpu, Domain& sd, IdleType idle, bool* balance) {
  CpuMask cpus = all_cpus(ctx_->cpus());
  bool sd_idle = idle != IdleType::kNotIdle && sd.has(kSdShareCpupower);
  bool all_pinned = false;
  int ld_moved = 0;
  bool active_balance = false;
  for (;;) {
    int64_t imbalance = 0;
    const int group = find_busiest_group(this_cpu, sd, idle, cpus, balance, &sd_idle, &imbalance);
    if (balance && !*balance) break;
    if (group < 0) break;
    const CpuId busiest = find_busiest_queue(sd, group, imbalance, cpus);
    if (busiest == kNoCpu) break;
    ld_moved = 0;
    all_pinned = false;
    if (all_running(busiest) > 1) {
      ld_moved = move_tasks(this_cpu, busiest, imbalance, sd, &all_pinned) > 0 ? 1 : 0;
      if (all_pinned) {
        cpus.reset(static_cast<size_t>(busiest));
        if ((cpus & sd.span).any()) continue;
        break;  // out_balanced
      }
    }
    if (!ld_moved) {
      ++sd.nr_balance_failed;
      if (sd.nr_balance_failed > sd.t.cache_nice_tries + 2) {
        const Task* running = ctx_->curr(busiest);
        if (running && !running->allowed_on(this_cpu)) {
          all_pinned = true;
          goto out_one_pinned;
        }
        if (!rq_[busiest].active_balance) {
          rq_[busiest].active_balance = true;
          rq_[busiest].push_cpu = this_cpu;
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
    if (!ld_moved && !sd_idle && sd.has(kSdShareCpupower)) ld_moved = -1;
    return ld_moved;
  }
  // out_balanced:
  sd.nr_balance_failed = 0;
out_one_pinned:
  if ((all_pinned && sd.balance_interval_ms < kMaxPinnedInterval) ||
      sd.balance_interval_ms < sd.t.max_interval_ms)
    sd.balance_interval_ms *= 2;
  return !sd_idle && sd.has(kSdShareCpupower) ? -1 : 0;
}

// load_balance_newidle(): the same search from a CPU about to go idle.
int Cfs::load_balance_newidle(CpuId this_cpu, Domain& sd) {
  CpuMask cpus = all_cpus(ctx_->cpus());
  bool sd_idle = sd.has(kSdShareCpupower);
  for (;;) {
    int64_t imbalance = 0;
    const int group =
        find_busiest_group(this_cpu, sd, IdleType::kNewlyIdle, cpus, nullptr, &sd_idle, &imbalance);
    if (group < 0) break;
    const CpuId busiest = find_busiest_queue(sd, group, imbalance, cpus);
    if (busiest == kNoCpu) break;
    int ld_moved = 0;
    if (all_running(busiest) > 1) {
      bool all_pinned = false;
      ld_moved = move_tasks(this_cpu, busiest, imbalance, sd, &all_pinned) > 0 ? 1 : 0;
      if (all_pinned) {
        cpus.reset(static_cast<size_t>(busiest));
        if ((cpus & sd.span).any()) continue;
      }
    }
    // Nothing moved: -1 (with power-savings balancing off there is no active balance
    // from here), which also ends idle_balance()'s walk up the domains.
    if (!ld_moved) return -1;
    sd.nr_balance_failed = 0;
    return ld_moved;
  }
  if (!sd_idle && sd.has(kSdShareCpupower)) return -1;
  sd.nr_balance_failed = 0;
  return 0;
}

void Cfs::idle_balance(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (balance32()) {
    rq.idle_stamp = ctx_->now();
    if (rq.avg_idle < tun_.migration_cost) return;  // 2.6.32: idle periods too short
  }
  const int64_t now = jiffies();
  int64_t next_balance = now + ctx_->machine().hz;
  int pulled = 0;  // as in the kernel, a failed attempt (-1) also stops the walk
  for (Domain& sd : rq.domains) {
    if (!sd.has(kSdLoadBalance)) continue;
    if (sd.has(kSdBalanceNewidle)) pulled = load_balance_newidle(cpu, sd);
    next_balance =
        std::min(next_balance, sd.last_balance_jiffy + msecs_to_jiffies(sd.balance_interval_ms));
    if (pulled) {
      rq.idle_stamp = 0;
      break;
    }
  }
  if (pulled || now > rq.next_balance_jiffy) rq.next_balance_jiffy = next_balance;
}

// rebalance_domains(): each domain whose interval has passed is balanced, bottom up; a
// busy CPU waits busy_factor times longer.
void Cfs::rebalance_domains(CpuId cpu, IdleType idle) {
  RunQueue& rq = rq_[cpu];
  const int64_t now = jiffies();
  int64_t next_balance = now + 60 * ctx_->machine().hz;
  bool update_next_balance = false;
  bool balance = true;
  for (Domain& sd : rq.domains) {
    if (!sd.has(kSdLoadBalance)) continue;
    int64_t interval = sd.balance_interval_ms;
    if (idle != IdleType::kIdle) interval *= sd.t.busy_factor;
    interval = std::max<int64_t>(1, msecs_to_jiffies(interval));
    interval = std::min<int64_t>(interval, ctx_->machine().hz * kNrCpusConfig / 10);
    if (now >= sd.last_balance_jiffy + interval) {
      if (load_balance(cpu, sd, idle, &balance)) idle = IdleType::kNotIdle;
      sd.last_balance_jiffy = now;
    }
    if (next_balance > sd.last_balance_jiffy + interval) {
      next_balance = sd.last_balance_jiffy + interval;
      update_next_balance = true;
    }
    if (!balance) break;
  }
  if (update_next_balance) rq.next_balance_jiffy = next_balance;
}

void Cfs::tick_balance(CpuId cpu) {
  sync_cpu_load(cpu);
  const int64_t now = jiffies();
  if (now >= rq_[cpu].next_balance_jiffy)
    rebalance_domains(cpu, ctx_->curr(cpu) ? IdleType::kNotIdle : IdleType::kIdle);
  if (now == ilb_jiffy_) return;
  ilb_jiffy_ = now;
  for (CpuId c = 0; c < ctx_->cpus(); ++c) {
    if (ctx_->curr(c) || !ctx_->idle(c)) continue;
    if (now >= rq_[c].next_balance_jiffy) rebalance_domains(c, IdleType::kIdle);
  }
}

// active_load_balance(), run by the busiest CPU's migration thread: with the running task
// put back in the queue, move one task to the CPU that asked.
void Cfs::balance(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (!rq.active_balance) return;
  rq.active_balance = false;
  const CpuId target = rq.push_cpu;
  if (rq.nr_running == 0 || target == kNoCpu) return;
  Domain* sd = nullptr;
  for (Domain& d : rq_[target].domains)
    if (d.has(kSdLoadBalance) && d.span.test(static_cast<size_t>(cpu))) {
      sd = &d;
      break;
    }
  if (!sd) return;
  for (TaskId id = rq.tasks_head; id != kNoTask;) {
    Entity& e = se_[id];
    const TaskId next = e.list_next;
    bool pinned = true;
    if (can_migrate_task(e, cpu, target, *sd, &pinned)) {
      pull_task(e, target);
      return;
    }
    id = next;
  }
}

}  // namespace schedlab::cfs
