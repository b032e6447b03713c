#include "policy/balance/balancer.h"

#include <algorithm>

namespace schedlab::balance {

namespace {
constexpr int64_t kLoadScale = 1024;  // SCHED_LOAD_SCALE

// for_each_cpu_and(): the CPUs of `group` also in `also`, in increasing order, without
// building the intersection (a mask past 256 CPUs lives on the heap: a temporary per
// group was an allocation per group per balance on a 1,024-CPU machine).
template <typename Fn>
void for_each_cpu_and(const CpuMask& group, const CpuMask& also, Fn&& fn) {
  for_each_cpu(group, [&](CpuId c) {
    if (also.test(static_cast<size_t>(c))) fn(c);
  });
}
constexpr int kMaxPinnedInterval = 512;
constexpr int kNrCpusConfig = 64;
}  // namespace

void Balancer::attach(SchedContext& ctx, MovableTasks& tasks) {
  ctx_ = &ctx;
  tasks_ = &tasks;
  loads_ = tasks.load_refs();
  const auto domains = build_domains(ctx.machine(), levels_, rules_.group_power);
  cpus_.resize(static_cast<size_t>(ctx.cpus()));
  for (CpuId c = 0; c < ctx.cpus(); ++c) {
    cpus_[c].domains = domains[c];
    cpus_[c].avg_idle = 2 * rules_.migration_cost_ns;
  }
}

int64_t Balancer::msecs_to_jiffies(int64_t ms) const {
  const int64_t hz = ctx_->machine().hz;
  return rules_.jiffies_round_up ? (ms * hz + 999) / 1000 : ms * hz / 1000;
}

// ---------------------------------------------------------------- loads

// update_cpu_load(), one tick: cpu_load[i] = (old * (2^i - 1) + new) / 2^i.
void Balancer::step_cpu_load(CpuState& st, int64_t this_load) const {
  for (int i = 0; i < rules_.cpu_load_indices; ++i) {
    const int64_t scale = int64_t{1} << i;
    int64_t new_load = this_load;
    if (new_load > st.cpu_load[i] && rules_.round_up_rising) new_load += scale - 1;
    st.cpu_load[i] = (st.cpu_load[i] * (scale - 1) + new_load) >> i;
  }
}

// The ticks a CPU missed while idle count with the load it has now (none, being idle).
void Balancer::sync_cpu_load(CpuId cpu, int64_t this_load) {
  CpuState& st = cpus_[cpu];
  const int64_t now = jiffies();
  int64_t missed = std::min<int64_t>(now - st.load_jiffy, 1024);
  st.load_jiffy = now;
  for (; missed > 0; --missed) {
    step_cpu_load(st, this_load);
    bool settled = true;
    for (int i = 0; i < rules_.cpu_load_indices; ++i)
      settled = settled && st.cpu_load[i] == this_load;
    if (settled) break;
  }
}

void Balancer::sync_cpu_load(CpuId cpu) {
  sync_cpu_load(cpu, queue_load(cpu).weight);
}

int64_t Balancer::cpu_load(CpuId cpu, int i) {
  if (rules_.catch_up_missed_ticks) sync_cpu_load(cpu);
  return cpus_[cpu].cpu_load[i];
}

int64_t Balancer::source_load(CpuId cpu, int idx, int64_t total) {
  if (idx == 0 || !rules_.lb_bias) return total;
  if (rules_.catch_up_missed_ticks) sync_cpu_load(cpu, total);
  return std::min(cpus_[cpu].cpu_load[idx - 1], total);
}

int64_t Balancer::target_load(CpuId cpu, int idx, int64_t total) {
  if (idx == 0 || !rules_.lb_bias) return total;
  if (rules_.catch_up_missed_ticks) sync_cpu_load(cpu, total);
  return std::max(cpus_[cpu].cpu_load[idx - 1], total);
}

int64_t Balancer::source_load(CpuId cpu, int idx) {
  return source_load(cpu, idx, queue_load(cpu).weight);
}

int64_t Balancer::target_load(CpuId cpu, int idx) {
  return target_load(cpu, idx, queue_load(cpu).weight);
}

int64_t Balancer::cpu_avg_load_per_task(CpuId cpu) const {
  const QueueLoad q = queue_load(cpu);
  return q.nr_running ? q.weight / q.nr_running : rules_.empty_load_per_task;
}

// The RT or deadline task running on the CPU, which rq->nr_running counts.
int Balancer::other_classes_running(CpuId cpu) const {
  return rules_.count_other_classes && ctx_->rt_or_deadline_cpus().test(static_cast<size_t>(cpu))
             ? 1
             : 0;
}

int Balancer::nr_running(CpuId cpu) const {
  return queue_load(cpu).nr_running + other_classes_running(cpu);
}

// ---------------------------------------------------------------- fork balancing

// find_idlest_group(): the least loaded group, if it beats this CPU's group by half the
// domain's imbalance_pct.
int Balancer::find_idlest_group(const Domain& sd, const Task& p, CpuId this_cpu, int idx) {
  int idlest = -1;
  int64_t min_load = INT64_MAX, this_load = 0;
  const int64_t imbalance = 100 + (sd.t.imbalance_pct - 100) / 2;
  const GroupList& list = *sd.list;
  const std::vector<CpuId>* single = cpu_numbers(list);
  for (size_t g = 0; g < sd.group_count(); ++g) {
    const size_t at = sd.list_index(g);
    int64_t avg_load = 0;
    bool local;
    if (single) {
      const CpuId c = (*single)[at];
      if (!p.allowed.test(static_cast<size_t>(c))) continue;
      local = c == this_cpu;
      avg_load = local ? source_load(c, idx) : target_load(c, idx);
    } else {
      const CpuMask& group = list.masks[at];
      if (!group.intersects(p.allowed)) continue;
      local = group.test(static_cast<size_t>(this_cpu));
      for_each_cpu(group,
                   [&](CpuId i) { avg_load += local ? source_load(i, idx) : target_load(i, idx); });
    }
    avg_load = avg_load * kLoadScale / list.power[at];
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

CpuId Balancer::find_idlest_cpu(const CpuMask& group, const Task& p, CpuId this_cpu) const {
  int64_t min_load = INT64_MAX;
  CpuId idlest = kNoCpu;
  for_each_cpu_and(group, p.allowed, [&](CpuId i) {
    const int64_t load = queue_load(i).weight;
    if (load < min_load || (load == min_load && i == this_cpu)) {
      min_load = load;
      idlest = i;
    }
  });
  return idlest;
}

CpuId Balancer::balance_fork(const Task& p, CpuId cpu) {
  int level = -1;  // index into cpu's domains
  for (size_t i = 0; i < cpus_[cpu].domains.size(); ++i)
    if (cpus_[cpu].domains[i].has(kSdBalanceFork)) level = static_cast<int>(i);
  while (level >= 0) {
    const Domain& sd = cpus_[cpu].domains[level];
    const int group =
        sd.has(kSdBalanceFork) ? find_idlest_group(sd, p, cpu, sd.t.forkexec_idx) : -1;
    const CpuId new_cpu = group < 0 ? kNoCpu : find_idlest_cpu(sd.group(group), p, cpu);
    if (new_cpu == kNoCpu || new_cpu == cpu) {
      --level;
      continue;
    }
    // Continue on new_cpu, below the span just balanced.
    const size_t weight = sd.span.count();
    cpu = new_cpu;
    level = -1;
    const auto& nd = cpus_[cpu].domains;
    for (size_t i = 0; i < nd.size(); ++i) {
      if (weight <= nd[i].span.count()) break;
      if (nd[i].has(kSdBalanceFork)) level = static_cast<int>(i);
    }
  }
  return cpu;
}

void Balancer::note_wakeup(CpuId cpu) {
  CpuState& st = cpus_[cpu];
  if (!rules_.newidle_rate_limit || st.idle_stamp == 0) return;
  const int64_t delta = ctx_->now() - st.idle_stamp;
  const int64_t max = 2 * rules_.migration_cost_ns;
  st.avg_idle = delta > max ? max : st.avg_idle + ((delta - st.avg_idle) >> 3);  // update_avg()
  st.idle_stamp = 0;
}

// ---------------------------------------------------------------- moving tasks

// move_tasks() / balance_tasks(): walk the busiest CPU's tasks in the class's order and
// pull those that fit until max_load_move of weight (or max_nr_move tasks) has moved.
// Returns the number pulled.
int Balancer::move_tasks(CpuId this_cpu, CpuId busiest, int max_nr_move, int64_t max_load_move,
                         const Domain& sd, bool* all_pinned) {
  if (all_pinned) *all_pinned = true;
  if (max_nr_move <= 0 || max_load_move <= 0) return 0;
  BestPrio this_best, busiest_best;
  if (rules_.skip_for_load == SkipForLoad::kWeightUnlessBestPrio) {
    this_best = tasks_->best_prio(this_cpu);
    busiest_best = tasks_->best_prio(busiest);
  }
  // this_cpu is both the CPU running the balancer and the destination here.
  const bool buddies_hot = rules_.hot_buddy_rq == HotBuddyRq::kAny || nr_running(this_cpu) > 0;
  const MovePass::Limits limits{max_nr_move,
                                max_load_move,
                                rules_.nr_migrate,
                                rules_.skip_for_load,
                                sd.nr_balance_failed > sd.t.cache_nice_tries,
                                buddies_hot};
  const MovePass pass =
      tasks_->move_from(busiest, MovePass(*ctx_, this_cpu, limits, this_best.prio, busiest_best));
  if (all_pinned) *all_pinned = pass.all_pinned();
  return pass.pulled();
}

// ---------------------------------------------------------------- the busiest group

int Balancer::load_idx(const Domain& sd, IdleType idle) const {
  return idle == IdleType::kNotIdle     ? sd.t.busy_idx
         : idle == IdleType::kNewlyIdle ? sd.t.newidle_idx
                                        : sd.t.idle_idx;
}

// update_sg_lb_stats(): the group's load (target_load for the local group, source_load
// for the others), its tasks, and the CPU that balances for the local group (its first
// idle CPU, else its first).
inline Balancer::GroupStats Balancer::group_stats(const CpuMask& group, bool local, int idx,
                                                  const CpuMask& cpus, bool* sd_idle) {
  GroupStats s;
  s.balance_cpu = local ? static_cast<CpuId>(group.find_first()) : kNoCpu;
  bool first_idle = false;
  for_each_cpu_and(group, cpus, [&](CpuId i) {
    const QueueLoad q = queue_load(i);
    const int running = q.nr_running + other_classes_running(i);
    if (*sd_idle && running) *sd_idle = false;
    if (running > 1) s.overloaded = true;
    int64_t load;
    if (local) {
      if (!ctx_->curr(i) && !first_idle) {
        first_idle = true;
        s.balance_cpu = i;
      }
      load = target_load(i, idx, q.weight);
    } else {
      load = source_load(i, idx, q.weight);
    }
    s.load += load;
    s.nr_running += running;
    s.weighted_load += q.weight;
    if (rules_.group_imbalance && !local) {  // the spread and cpu_avg_load_per_task()
      s.max_cpu_load = std::max(s.max_cpu_load, load);
      s.min_cpu_load = std::min(s.min_cpu_load, load);
      s.avg_per_task_sum += q.nr_running ? q.weight / q.nr_running : rules_.empty_load_per_task;
    }
  });
  return s;
}

// The same figures for a group of one CPU, read without walking its mask: its balance_cpu
// is the CPU itself, and its spread (max - min) is zero, never above twice a load per task
// (>= 0), so the spread is left unset (min_cpu_load INT64_MAX: find_busiest_group skips
// the group-imbalance test, which could only be false).
inline Balancer::GroupStats Balancer::cpu_stats(CpuId c, bool local, int idx, const CpuMask& cpus,
                                                bool* sd_idle) {
  GroupStats s;
  s.balance_cpu = local ? c : kNoCpu;
  if (!cpus.test(static_cast<size_t>(c))) return s;
  const QueueLoad q = queue_load(c);
  const int running = q.nr_running + other_classes_running(c);
  if (*sd_idle && running) *sd_idle = false;
  s.overloaded = running > 1;
  const int64_t load = local ? target_load(c, idx, q.weight) : source_load(c, idx, q.weight);
  s.load = load;
  s.nr_running = running;
  s.weighted_load = q.weight;
  return s;
}

// 2.6.32: the level below has SD_PREFER_SIBLING, so each of this level's groups should
// hold one task before spilling.
bool Balancer::prefers_sibling(CpuId this_cpu, const Domain& sd) const {
  const auto& doms = cpus_[this_cpu].domains;
  for (size_t i = 1; i < doms.size(); ++i)
    if (&doms[i] == &sd) return doms[i - 1].has(kSdPreferSibling);
  return false;
}

// fix_small_imbalance(): less than one task's load to move; move one task if that
// improves the combined throughput. False: balanced after all (2.6.22).
bool Balancer::fix_small_imbalance(const Figures& f, CpuId this_cpu, int64_t* imbalance) const {
  int64_t this_load_per_task = f.this_weighted_load;
  int64_t imbn = 2;
  if (f.this_nr_running) {
    this_load_per_task /= f.this_nr_running;
    if (f.busiest_load_per_task > this_load_per_task) imbn = 1;
  } else {
    this_load_per_task = cpu_avg_load_per_task(this_cpu);
  }
  const int64_t gap =
      f.max_load - f.this_load + (rules_.small_imbalance_2622 ? 0 : f.busiest_load_per_task);
  if (gap >= f.busiest_load_per_task * imbn) {
    *imbalance = f.busiest_load_per_task;
    return true;
  }
  const int64_t bp = f.busiest_power, tp = f.this_power, blpt = f.busiest_load_per_task;
  const int64_t pwr_now =
      (bp * std::min(blpt, f.max_load) + tp * std::min(this_load_per_task, f.this_load)) /
      kLoadScale;
  int64_t tmp = blpt * kLoadScale / bp;
  int64_t pwr_move = 0;
  if (f.max_load > tmp) pwr_move += bp * std::min(blpt, f.max_load - tmp);
  if (f.max_load * bp < blpt * kLoadScale)
    tmp = f.max_load * bp / tp;
  else
    tmp = blpt * kLoadScale / tp;
  pwr_move += tp * std::min(this_load_per_task, f.this_load + tmp);
  pwr_move /= kLoadScale;
  if (pwr_move > pwr_now) {
    *imbalance = blpt;
    return true;
  }
  if (!rules_.small_imbalance_2622) return true;
  *imbalance = 0;
  return false;
}

// calculate_imbalance(): pull the busiest down to the average, or this group up to it.
bool Balancer::calculate_imbalance(const Figures& f, CpuId this_cpu, int64_t* imbalance) const {
  if (f.max_load < f.avg_load) {
    *imbalance = 0;
    return fix_small_imbalance(f, this_cpu, imbalance);
  }
  const int64_t max_pull = std::min(f.max_load - f.avg_load, f.max_load - f.busiest_load_per_task);
  *imbalance =
      std::min(max_pull * f.busiest_power, (f.avg_load - f.this_load) * f.this_power) / kLoadScale;
  if (*imbalance < f.busiest_load_per_task) return fix_small_imbalance(f, this_cpu, imbalance);
  return true;
}

// What find_busiest_group() finds without walking the domain: no busiest group when
// every group is one CPU able to hold a task (capacity >= 1; an SMT thread's share of
// smt_gain, truncated without 2.6.32's rounding, would be 0) and no CPU of the span runs
// two tasks (two of the class's, or one beside an RT or deadline task running there).
// The walk's one lasting effect, idle CPUs' cpu_load[] catching up on missed ticks, comes
// out the same whenever it is next done (an idle CPU's load is that of the ticks it
// missed until its queue fills). A flat 1,024-CPU machine with fewer tasks than CPUs
// balances without reading every CPU.
bool Balancer::none_can_be_busiest(const Domain& sd) const {
  const GroupList& list = *sd.list;
  if (!cpu_numbers(list)) return false;
  const int64_t capacity = rules_.round_capacity ? (list.min_power + kLoadScale / 2) / kLoadScale
                                                 : list.min_power / kLoadScale;
  if (capacity < 1 || tasks_->crowded_cpus().intersects(sd.span)) return false;
  return !rules_.count_other_classes || !ctx_->rt_or_deadline_cpus().intersects(sd.span);
}

// find_busiest_group(): the busiest group of the domain and how much weighted load to
// move. Returns the group's index, or -1 when balanced.
int Balancer::find_busiest_group(CpuId this_cpu, Domain& sd, IdleType idle, const CpuMask& cpus,
                                 bool* balance, bool* sd_idle, int64_t* imbalance) {
  *imbalance = 0;
  if (!*sd_idle && none_can_be_busiest(sd)) {
    if (rules_.overload_gate && &sd == &cpus_[this_cpu].domains.back()) overload_ = false;
    ++shortcuts_;
    return -1;
  }
  const int idx = load_idx(sd, idle);
  const bool prefer_sibling = rules_.prefer_sibling && prefers_sibling(this_cpu, sd);
  Figures f;
  int64_t total_load = 0, total_pwr = 0, busiest_nr_running = 0;
  int busiest = -1, this_group = -1;
  bool group_imb_busiest = false;
  bool overloaded = false;
  const std::vector<CpuId>* single = cpu_numbers(*sd.list);
  for (size_t g = 0; g < sd.group_count(); ++g) {
    const size_t at = sd.list_index(g);
    bool local;
    GroupStats s;
    if (single) {
      const CpuId c = (*single)[at];
      local = c == this_cpu;
      s = cpu_stats(c, local, idx, cpus, sd_idle);
    } else {
      const CpuMask& group = sd.list->masks[at];
      local = group.test(static_cast<size_t>(this_cpu));
      s = group_stats(group, local, idx, cpus, sd_idle);
    }
    // Only one CPU of the local group balances this domain.
    if (idle != IdleType::kNewlyIdle && local && s.balance_cpu != this_cpu && balance) {
      *balance = false;
      return -1;
    }
    const int64_t power = sd.list->power[at];
    const int64_t avg_load = s.load * kLoadScale / power;
    const bool group_imb =
        rules_.group_imbalance && !local && s.min_cpu_load != INT64_MAX &&
        s.max_cpu_load - s.min_cpu_load > 2 * (s.avg_per_task_sum * kLoadScale / power);
    int64_t capacity =
        rules_.round_capacity ? (power + kLoadScale / 2) / kLoadScale : power / kLoadScale;
    if (prefer_sibling) capacity = std::min<int64_t>(capacity, 1);
    total_load += s.load;
    total_pwr += power;
    overloaded = overloaded || s.overloaded;
    if (local) {
      this_group = static_cast<int>(g);
      f.this_load = avg_load;
      f.this_nr_running = s.nr_running;
      f.this_weighted_load = s.weighted_load;
    } else if (avg_load > f.max_load && (s.nr_running > capacity || group_imb)) {
      f.max_load = avg_load;
      busiest = static_cast<int>(g);
      busiest_nr_running = s.nr_running;
      f.busiest_load_per_task = s.weighted_load;
      group_imb_busiest = group_imb;
    }
  }
  // update_sd_lb_stats() at the root domain: the overload mark as the groups show it.
  if (rules_.overload_gate && &sd == &cpus_[this_cpu].domains.back()) overload_ = overloaded;
  if (busiest < 0 || busiest_nr_running == 0 || this_group < 0) return -1;
  if (f.this_load >= f.max_load) return -1;
  f.avg_load = kLoadScale * total_load / total_pwr;
  if (f.this_load >= f.avg_load) return -1;
  if (100 * f.max_load <= sd.t.imbalance_pct * f.this_load) return -1;
  f.busiest_load_per_task /= busiest_nr_running;
  if (group_imb_busiest) f.busiest_load_per_task = std::min(f.busiest_load_per_task, f.avg_load);
  if (f.max_load <= f.busiest_load_per_task) return -1;
  f.busiest_power = sd.group_power(busiest);
  f.this_power = sd.group_power(this_group);
  return calculate_imbalance(f, this_cpu, imbalance) ? busiest : -1;
}

CpuId Balancer::find_busiest_queue(const Domain& sd, int group, int64_t imbalance,
                                   const CpuMask& cpus) const {
  CpuId busiest = kNoCpu;
  int64_t max_load = 0;
  for_each_cpu_and(sd.group(group), cpus, [&](CpuId i) {
    const QueueLoad q = queue_load(i);
    const int64_t wl = q.weight;  // power is one CPU's (ARCH_POWER off)
    // A lone task heavier than the imbalance would only move the imbalance elsewhere.
    if (q.nr_running + other_classes_running(i) == 1 && wl > imbalance) return;
    if (wl > max_load) {
      max_load = wl;
      busiest = i;
    }
  });
  return busiest;
}

// ---------------------------------------------------------------- balancing

// load_balance(): pull from the busiest queue of the busiest group; after repeated
// failures, ask the busiest CPU's migration thread to push its running task over.
int Balancer::load_balance(CpuId this_cpu, Domain& sd, IdleType idle, bool* balance) {
  CpuMask cpus = all_cpus(ctx_->cpus());
  bool sd_idle = rules_.sd_idle && idle != IdleType::kNotIdle && sd.has(kSdShareCpupower);
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
    if (nr_running(busiest) > 1) {
      ld_moved =
          move_tasks(this_cpu, busiest, max_moves(busiest), imbalance, sd, &all_pinned) > 0 ? 1 : 0;
      if (all_pinned) {
        cpus.reset(static_cast<size_t>(busiest));
        if (cpus.intersects(sd.span)) continue;
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
        CpuState& b = cpus_[busiest];
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
    return ld_moved ? ld_moved : smt_busy(sd_idle, sd);
  }
  // out_balanced:
  sd.nr_balance_failed = 0;
out_one_pinned:
  if ((all_pinned && sd.balance_interval_ms < kMaxPinnedInterval) ||
      sd.balance_interval_ms < sd.t.max_interval_ms)
    sd.balance_interval_ms *= 2;
  return smt_busy(sd_idle, sd);
}

// load_balance_newidle(): the same search from a CPU about to go idle.
int Balancer::load_balance_newidle(CpuId this_cpu, Domain& sd) {
  CpuMask cpus = all_cpus(ctx_->cpus());
  bool sd_idle = rules_.sd_idle && sd.has(kSdShareCpupower);
  for (;;) {
    int64_t imbalance = 0;
    const int group =
        find_busiest_group(this_cpu, sd, IdleType::kNewlyIdle, cpus, nullptr, &sd_idle, &imbalance);
    if (group < 0) break;
    const CpuId busiest = find_busiest_queue(sd, group, imbalance, cpus);
    if (busiest == kNoCpu) break;
    int ld_moved = 0;
    if (nr_running(busiest) > 1) {
      bool all_pinned = false;
      ld_moved =
          move_tasks(this_cpu, busiest, max_moves(busiest), imbalance, sd, &all_pinned) > 0 ? 1 : 0;
      if (rules_.newidle_2622 ? !ld_moved : all_pinned) {
        cpus.reset(static_cast<size_t>(busiest));
        if (cpus.intersects(sd.span)) continue;
      }
    }
    // Nothing moved: with power-savings balancing off there is no active balance from
    // here, and 2.6.31's -1 also ends idle_balance()'s walk up the domains.
    if (!ld_moved) return rules_.newidle_2622 ? 0 : -1;
    sd.nr_balance_failed = 0;
    return ld_moved;
  }
  if (const int busy = smt_busy(sd_idle, sd)) return busy;
  sd.nr_balance_failed = 0;
  return 0;
}

void Balancer::idle_balance(CpuId cpu) {
  CpuState& st = cpus_[cpu];
  if (rules_.newidle_rate_limit) {
    st.idle_stamp = ctx_->now();
    if (st.avg_idle < rules_.migration_cost_ns) return;  // idle periods too short
  }
  if (rules_.overload_gate && !overload_) {
    // 6.x: no queue has had two tasks since the last root-level balance, so nothing can be
    // pulled; the next balance is at most the base domain's interval away.
    int64_t next = jiffies() + ctx_->machine().hz;
    if (!st.domains.empty()) {
      const Domain& sd = st.domains.front();
      next = std::min(next, sd.last_balance_jiffy + balance_interval(sd, false));
    }
    if (st.next_balance_jiffy > next) st.next_balance_jiffy = next;
    return;
  }
  ++newidle_walks_;
  const int64_t now = jiffies();
  const int64_t hz = ctx_->machine().hz;
  int64_t next_balance = now + (rules_.idle_balance_2622 ? 60 * hz : hz);
  int pulled = 0;  // as in the kernel, a failed attempt (-1) also stops the walk
  for (Domain& sd : st.domains) {
    if (!sd.has(kSdLoadBalance)) continue;
    if (rules_.idle_balance_2622 && !sd.has(kSdBalanceNewidle)) continue;
    if (sd.has(kSdBalanceNewidle)) pulled = load_balance_newidle(cpu, sd);
    next_balance =
        std::min(next_balance, sd.last_balance_jiffy + msecs_to_jiffies(sd.balance_interval_ms));
    if (pulled) {
      st.idle_stamp = 0;
      break;
    }
  }
  const bool reset = rules_.idle_balance_2622 ? !pulled : pulled || now > st.next_balance_jiffy;
  if (reset) st.next_balance_jiffy = next_balance;
}

// rebalance_domains(): each domain whose interval has passed is balanced, bottom up; a
// busy CPU waits busy_factor times longer.
int64_t Balancer::balance_interval(const Domain& sd, bool busy) const {
  const int64_t ms = busy ? sd.balance_interval_ms * sd.t.busy_factor : sd.balance_interval_ms;
  const int64_t interval = std::max<int64_t>(1, msecs_to_jiffies(ms));
  return rules_.cap_interval ? std::min<int64_t>(interval, ctx_->machine().hz * kNrCpusConfig / 10)
                             : interval;
}

void Balancer::rebalance_domains(CpuId cpu, IdleType idle) {
  CpuState& st = cpus_[cpu];
  const int64_t now = jiffies();
  const int64_t hz = ctx_->machine().hz;
  int64_t next_balance = now + 60 * hz;
  bool update_next_balance = false;
  bool balance = true;
  for (Domain& sd : st.domains) {
    if (!sd.has(kSdLoadBalance)) continue;
    const int64_t interval = balance_interval(sd, idle != IdleType::kIdle);
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
  if (update_next_balance) st.next_balance_jiffy = next_balance;
}

void Balancer::tick(CpuId cpu) {
  if (rules_.catch_up_missed_ticks)
    sync_cpu_load(cpu);
  else
    step_cpu_load(cpus_[cpu], queue_load(cpu).weight);
  const int64_t now = jiffies();
  if (now >= cpus_[cpu].next_balance_jiffy)
    rebalance_domains(cpu, ctx_->curr(cpu) ? IdleType::kNotIdle : IdleType::kIdle);
  if (now == ilb_jiffy_) return;
  ilb_jiffy_ = now;
  for (CpuId c = 0; c < ctx_->cpus(); ++c) {
    if (ctx_->curr(c) || !ctx_->idle(c)) continue;
    if (now >= cpus_[c].next_balance_jiffy) rebalance_domains(c, IdleType::kIdle);
  }
}

// active_load_balance(), run by the busiest CPU's migration thread: with the running task
// put back in the queue, move one task to the CPU that asked.
void Balancer::active_balance(CpuId cpu) {
  CpuState& st = cpus_[cpu];
  if (!st.active_balance) return;
  st.active_balance = false;
  const CpuId target = st.push_cpu;
  if (queue_load(cpu).nr_running <= rules_.active_min_queued || target == kNoCpu) return;
  const Domain* sd = nullptr;
  for (const Domain& d : cpus_[target].domains)
    if (d.has(kSdLoadBalance) && d.span.test(static_cast<size_t>(cpu))) {
      sd = &d;
      break;
    }
  if (!sd) return;
  // move_one_task(): the first task that may move, whatever its load.
  // The migration thread runs on the busiest CPU (this_rq() is busy); 6.x asks the target.
  const bool buddies_hot = rules_.hot_buddy_rq != HotBuddyRq::kDstRq || nr_running(target) > 0;
  const MovePass::Limits limits{1,
                                INT64_MAX,
                                INT64_MAX,
                                SkipForLoad::kHalfWeight,
                                sd->nr_balance_failed > sd->t.cache_nice_tries,
                                buddies_hot};
  tasks_->move_from(cpu, MovePass(*ctx_, target, limits, 0, {}));
}

}  // namespace schedlab::balance
