// BFS, Con Kolivas's Brain Fuck Scheduler, after kernel/sched_bfs.c of BFS 0.318 (the
// jiffies-deadline BFS of late 2009; docs/algorithms/bfs.md). One global run queue
// for every CPU and every policy (BFS replaced the whole scheduler, RT included): 103
// priority lists (RT 0-99, ISO, NORMAL, IDLEPRIO), FIFO within a list.
//
// - Every task gets the same slice, rr_interval; nice only sets how far its virtual
//   deadline lies ahead: prio_ratios[] (100, then x1.1 per nice step) x rr_interval,
//   in jiffies. Slice and deadline are renewed only when the slice is used up (at
//   schedule()); a task that sleeps keeps both.
// - A CPU picks, at the best non-empty priority, the RT task first in line, or the
//   normal task with the earliest deadline + locality x its timeslice (locality 0 for
//   the same CPU, an SMT sibling or a shared cache; 1 for another die); a deadline
//   already past is taken at once, in queue order.
// - A wake-up goes to an idle CPU if one is allowed (the task's own first, then idle
//   caches, then the same die), else preempts the CPU running the worst priority /
//   latest deadline if the woken task beats it. A sync wake-up with no idle CPU does not
//   preempt.
// - fork halves the parent's remaining slice into the child, which inherits the deadline;
//   an unused first slice goes back to the parent when the child exits.
// - rr_interval grows x1.5 per doubling of the CPU count at boot (6 ms -> 13 ms on 4).
//
// Judgement and omissions: forks are treated as threads (CLONE_VM, which is what x264 and
// rt-app do), so a child always goes through try_preempt; schedule()'s "half a jiffy"
// charge for a zero clock delta guards against clock anomalies and is not modelled
// (simulated time is exact). SCHED_ISO: the global iso_ticks counter gains 100 per tick
// of a CPU running an RT task or an unthrottled ISO task, and every other tick, idle CPUs
// included, takes iso_ticks / ISO_PERIOD + 1 off it; ISO_PERIOD = 5 s of ticks of every
// CPU. Above iso_cpu % ISO tasks turn refractory: queued as SCHED_NORMAL, and a running
// one loses its slice; below 90 % of iso_cpu they are ISO again at their next enqueue.
// The engine ticks only busy CPUs, so the idle CPUs' ticks of a jiffy are applied when
// the next jiffy's first tick arrives (a jiffy late, and after that jiffy's busy ticks in
// the same order as the kernel would not guarantee either).
//
// Releases (docs/algorithms/bfs.md): "bfs" is 0.318 (erasmux/hero-2.6.29-flykernel
// @8b9e290f, the same rules as Conap30/htc_kernel_desirec_bfs @335a2e71). The presets of
// the seed releases switch the rules that differ, each read in that release's source:
// bfs-0.311 (Conap30/htc_kernel_desirec_bfs @4761bf4c), bfs-0.304 (same repository
// @52d5a108) and bfs-0.232 (ccyrowski/cm-kernel @77ada37e, "Initial checkin of BFS
// 0.232" c8fa3555, 2009-09-11: the release nearest to the 220/221 of E1/E2, which were
// not found).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <vector>

#include "policy/bfs_idle.h"
#include "policy/registry.h"

namespace schedlab {
namespace {

constexpr int kMaxRtPrio = 100;
constexpr int kIsoPrio = 100, kNormalPrio = 101, kIdlePrio = 102, kPrioLimit = 103;

#define BFS_PARAMS(X)                                                                            \
  X(int64_t, rr_interval, 6, params::at_least(0), "BFS 0.318",                                   \
    "slice in ms before the boot-time scaling by CPU count")                                     \
  X(bool, rr_interval_scaling, true, params::any(), "BFS 0.318",                                 \
    "multiply rr_interval by 3/2 per doubling of the CPU count, as BFS does at boot")            \
  X(bool, rr_scale_ilog2, false, params::any(), "BFS 0.232-0.316",                               \
    "scale rr_interval by 1 + ilog2(CPUs) instead (18 ms on 4 CPUs; 0.318: x3/2 per doubling)")  \
  X(int64_t, iso_cpu, 70, params::at_least(0), "BFS 0.318",                                      \
    "percent of all CPUs' time SCHED_ISO tasks may take at RT priority over 5 s")                \
  X(bool, iso_decay_multiplicative, false, params::any(), "BFS 0.232-0.310",                     \
    "a tick without ISO decays iso_ticks by x (ISO_PERIOD - 1) / ISO_PERIOD (0.311: - 1/P - 1)") \
  X(bool, yield_expires, false, params::any(), "BFS 0.304-0.316",                                \
    "sched_yield() zeroes the slice: a new slice and deadline (0.318 and <= 0.303 keep both)")   \
  X(bool, idleprio_deadline_offset, false, params::any(), "BFS 0.232-0.304",                     \
    "a SCHED_IDLEPRIO task's new deadline lies a further nice-19 offset ahead")                  \
  X(std::string, idle_cpu_choice, "ranked", params::one_of({"ranked", "nearest", "first"}),      \
    "BFS 0.310-0.318",                                                                           \
    "waking onto idle CPUs: ranked by busy cache/SMT partners (0.310+), nearest by cache "       \
    "(0.302-0.304: own, then CPU order), first (0.232: own, then CPU order)")                    \
  X(bool, cache_distance, true, params::any(), "BFS 0.302-0.318",                                \
    "deadlines offset by locality x timeslice in the pick and wake-up (0.232: none), and at "    \
    "equal priority a non-NORMAL waker preempts (0.232: only an earlier NORMAL one)")            \
  X(bool, scan_pick, false, params::any(), "schedlab",                                           \
    "always scan the queue and the CPUs as BFS does (0: exact indexes where every CPU shares a " \
    "cache; the same choices, faster)")
SCHEDLAB_DECLARE_PARAMS(BfsParams, BFS_PARAMS)

class Bfs final : public SchedClass {
 public:
  explicit Bfs(const BfsParams& p)
      : base_rr_interval_ms_(p.rr_interval),
        scale_rr_(p.rr_interval_scaling),
        scale_rr_ilog2_(p.rr_scale_ilog2),
        iso_decay_multiplicative_(p.iso_decay_multiplicative),
        yield_expires_(p.yield_expires),
        idleprio_offset_(p.idleprio_deadline_offset),
        idle_choice_(p.idle_cpu_choice == "first"     ? IdleChoice::kFirst
                     : p.idle_cpu_choice == "nearest" ? IdleChoice::kNearest
                                                      : IdleChoice::kRanked),
        cache_distance_(p.cache_distance),
        iso_cpu_(p.iso_cpu),
        scan_pick_(p.scan_pick) {}

  // BFS replaced every class below stop: it takes every policy but SCHED_DEADLINE.
  bool takes(SchedPolicy p) const override { return p != SchedPolicy::kDeadline; }

  void attach(SchedContext& ctx) override {
    SchedClass::attach(ctx);
    const int n = ctx.cpus();
    // The boot-time scaling (sched_init_smp): 0.318 multiplies by 3/2 per doubling of the
    // CPU count, in integer steps (@335a2e71 l.6139-6146); 0.232 to 0.316 by 1 + ilog2(n)
    // (@52d5a108 l.6029, @4761bf4c l.6138; cm-kernel @77ada37e l.5884).
    int scale = 0;
    while ((2 << scale) <= n) ++scale;  // ilog2(n)
    int64_t rr = base_rr_interval_ms_ * 100;
    if (scale_rr_ && scale_rr_ilog2_) {
      rr *= 1 + scale;
    } else if (scale_rr_) {
      for (int i = 0; i < scale; ++i) rr = rr * 3 / 2;
    }
    rr_interval_ms_ = std::max<int64_t>(1, rr / 100);
    prio_ratios_[0] = 100;
    for (int i = 1; i < 40; ++i) prio_ratios_[i] = prio_ratios_[i - 1] * 11 / 10;
    const Machine& m = ctx.machine();
    cpu_curr_prio_.assign(n, kPrioLimit);
    cpu_curr_deadline_.assign(n, 0);
    worst_running_.reset(n);
    // Every pair shares a core or a cache exactly when all CPUs share one core or one
    // cache (if two equivalence relations together relate every pair, one of them does).
    const auto everywhere = [&](const std::vector<int>& id_of) {
      return std::all_of(id_of.begin(), id_of.end(), [&](int id) { return id == id_of[0]; });
    };
    flat_locality_ =
        !scan_pick_ && (!cache_distance_ || everywhere(m.core_of) || everywhere(m.llc_of));
    iso_period_ = 5 * ctx.machine().hz * n + 1;  // ISO_PERIOD
    cache_of_.assign(n, CpuMask{});
    core_of_.assign(n, CpuMask{});
    for (CpuId a = 0; a < n; ++a)
      for (CpuId b = 0; b < n; ++b) {
        if (b != a && m.same_llc(a, b)) cache_of_[a].set(static_cast<size_t>(b));
        if (b != a && m.same_core(a, b)) core_of_[a].set(static_cast<size_t>(b));
      }
  }

  void task_new(Task& t, const Task* parent) override {
    if (static_cast<size_t>(t.id) >= se_.size()) se_.resize(t.id + 1);
    Entity& e = se_[t.id];
    const bool known = e.task != nullptr;
    e.task = &t;
    e.charged_ns = t.sum_exec_ns;
    if (known) return;  // back from a policy change: keeps its slice and deadline
    e.time_slice_us = timeslice_us();
    e.deadline = jiffies() + deadline_diff(t);
    if (parent && static_cast<size_t>(parent->id) < se_.size() && se_[parent->id].task &&
        t.policy != SchedPolicy::kFifo) {
      // sched_fork(): the child takes half of the parent's remaining slice.
      Entity& pe = se_[parent->id];
      charge(pe);
      if (pe.time_slice_us > 0) {
        pe.time_slice_us /= 2;
        e.first_time_slice = true;
      }
      e.time_slice_us = pe.time_slice_us;
      e.deadline = pe.deadline;
      e.parent = parent->id;
    }
  }

  // A woken task goes to the global queue; the CPU named here is the one BFS wakes to
  // take it: the best idle CPU (resched_best_idle), else the task's own (a forked child
  // starts on its parent's), where the engine asks check_preempt -> try_preempt.
  CpuId select_cpu(Task& t, CpuId prev, const WakeInfo& how) override {
    CpuId cpu = how.kind == WakeKind::kFork && how.waker_cpu != kNoCpu ? how.waker_cpu : prev;
    if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed.find_first());
    const CpuId idle = idle_cpu_for(t, cpu);
    return idle != kNoCpu ? idle : cpu;
  }

  void enqueue(CpuId, Task& t, const EnqueueFlags&) override { push(t); }

  void dequeue(CpuId cpu, Task& t, DequeueKind how) override {
    Entity& e = se_[t.id];
    if (e.queued) {
      remove(t);
      return;
    }
    if (ctx_->curr(cpu) == &t && (how == DequeueKind::kSleep || how == DequeueKind::kExit)) {
      charge(e);  // schedule() writes back the slice, renewing it if it ran out
      check_deadline(e);
      set_running(cpu, kPrioLimit, cpu_curr_deadline_[cpu]);
    }
  }

  // try_to_wake_up() / wake_up_new_task(): the engine calls this when the task's CPU is
  // busy (an idle one it reschedules itself, BFS's first choice too).
  void check_preempt(CpuId, Task&, Task& woken, const WakeInfo& how) override {
    const bool sync = how.kind == WakeKind::kWakeup && how.sync;
    if (sync && !suitable_idle_cpu(woken)) return;
    try_preempt(woken);
  }

  Task* pick_next(CpuId cpu) override {
    Task* next = earliest_deadline_task(cpu);
    set_running(cpu, next ? se_[next->id].prio : kPrioLimit,
                next ? se_[next->id].deadline : 0);  // rq->rq_deadline
    if (next) {
      Entity& e = se_[next->id];
      e.charged_ns = next->sum_exec_ns;
    }
    return next;
  }

  void put_prev(CpuId cpu, Task& prev) override {
    Entity& e = se_[prev.id];
    charge(e);
    check_deadline(e);
    set_running(cpu, kPrioLimit, cpu_curr_deadline_[cpu]);
    push(prev);
  }

  // scheduler_tick() -> task_running_tick().
  void task_tick(CpuId cpu, Task& curr) override {
    Entity& e = se_[curr.id];
    charge(e);
    account_idle_iso_ticks();
    const bool iso = curr.policy == SchedPolicy::kIso;
    if (is_rt(curr.policy) || (iso && !iso_refractory_)) {
      if (iso_ticks_ <= iso_period_ * 100 - 100) iso_ticks_ += 100;
    } else {
      no_iso_tick();
    }
    // An ISO task running as RT past its limit is made to reschedule as SCHED_NORMAL.
    if (iso && test_iso_refractory() && cpu_curr_prio_[cpu] == kIsoPrio) e.time_slice_us = 0;
    if (curr.policy == SchedPolicy::kFifo || e.time_slice_us > 0) return;
    ctx_->resched(cpu);
  }

  bool iso_refractory() const { return iso_refractory_; }
  int64_t iso_ticks() const { return iso_ticks_; }

  // sys_sched_yield(): requeue_task() is empty and schedule() decides, so 0.318 keeps the
  // slice and deadline (@335a2e71 l.3762-3784), as 0.232 to 0.303 did by accident
  // (schedule() wrote the rq's copies back over time_slice_expired(): cm-kernel @77ada37e
  // l.3533-3541, 2323-2327). 0.304 to 0.316 zero the slice first ("sched_yield broke",
  // @52d5a108 l.3686), so schedule() gives a new slice and deadline.
  void yield(CpuId cpu) override {
    if (!yield_expires_) return;
    Task* curr = ctx_->curr(cpu);
    if (!curr) return;
    Entity& e = se_[curr->id];
    charge(e);
    e.time_slice_us = 0;
  }

  void task_dead(Task& t) override {
    // sched_exit(): an unused first slice returns to the parent.
    Entity& e = se_[t.id];
    if (!e.first_time_slice || e.parent == kNoTask) return;
    Entity& pe = se_[e.parent];
    if (!pe.task || !pe.task->runnable) return;
    pe.time_slice_us = std::min(pe.time_slice_us + e.time_slice_us, timeslice_us());
  }

 private:
  struct Entity {
    Task* task = nullptr;
    int64_t time_slice_us = 0;
    int64_t deadline = 0;  // jiffies
    int64_t charged_ns = 0;
    int prio = kNormalPrio;
    bool queued = false, first_time_slice = false;
    bool in_expired = false;  // in the level's expired index (fast path)
    uint64_t seq = 0;         // position in its list: larger is later
    size_t slot = 0;          // its entry in levels_[prio].entries
    TaskId parent = kNoTask;
  };
  // A priority list as an array in queue order (a task joins at the end; one that leaves
  // leaves a hole, squeezed out when holes outnumber tasks). Each entry holds what the
  // pick's scan reads, copied at push: none of it changes while the task is queued (the
  // engine dequeues a task to move it or change its affinity or nice). The scan over a long
  // queue is then a walk along 32-byte entries in order, not a chase through the tasks.
  static constexpr CpuId kAnyCpu = -1, kSomeCpus = -2;
  struct QueueEntry {
    int64_t deadline = 0;   // Entity::deadline
    int64_t timeslice = 0;  // task_timeslice()
    TaskId id = kNoTask;    // kNoTask: a hole
    CpuId cpu = kNoCpu;     // the task's CPU, for the locality
    CpuId only = kAnyCpu;   // the one CPU it may run on, kAnyCpu, or kSomeCpus (its mask)
  };
  struct Level {
    std::vector<QueueEntry> entries;
    size_t tasks = 0;
  };

  int64_t jiffies() const { return ctx_->now() / ctx_->tick_ns(); }
  int64_t timeslice_us() const { return rr_interval_ms_ * 1000; }
  int user_prio(const Task& t) const { return t.nice + 20; }
  // prio_deadline_diff(): the deadline offset in jiffies, at least one.
  int64_t deadline_diff(const Task& t) const {
    const int64_t hz = ctx_->machine().hz;
    return std::max<int64_t>(1, prio_ratios_[user_prio(t)] * rr_interval_ms_ * hz / (1000 * 100));
  }
  // task_timeslice(): rr_interval scaled by the ratio (used as jiffies, as BFS does).
  int64_t task_timeslice(const Task& t) const {
    return rr_interval_ms_ * prio_ratios_[user_prio(t)] / 100;
  }
  // cache_distance(): 0 on one core or cache, 1 in one package, 3 across packages; read
  // from the topology rather than stored for every pair of CPUs.
  int locality(CpuId a, CpuId b) const {
    const Machine& m = ctx_->machine();
    if (!cache_distance_ || a == b || m.same_core(a, b) || m.same_llc(a, b))
      return 0;  // 0.232 has no cache distance (cm-kernel @77ada37e)
    return m.same_package(a, b) ? 1 : 3;
  }

  // enqueue_task(): the list a task joins; an ISO task is NORMAL while refractory.
  int prio_of(const Task& t) const {
    switch (t.policy) {
      case SchedPolicy::kFifo:
      case SchedPolicy::kRR:
        return kMaxRtPrio - 1 - t.rt_priority;
      case SchedPolicy::kIdle:
        return kIdlePrio;
      case SchedPolicy::kIso:
        return iso_refractory_ ? kNormalPrio : kIsoPrio;
      default:
        return kNormalPrio;
    }
  }

  // no_iso_tick(): a tick with no RT or unthrottled ISO task running decays iso_ticks, and
  // may end the refractory period (10 % hysteresis).
  void no_iso_tick() {
    if (iso_ticks_ == 0) return;
    if (iso_decay_multiplicative_)  // up to 0.310 (@52d5a108 l.2056)
      iso_ticks_ = iso_ticks_ * (iso_period_ - 1) / iso_period_;
    else  // 0.311's fix of the 32-bit overflow (@4761bf4c l.2141)
      iso_ticks_ -= iso_ticks_ / iso_period_ + 1;
    if (iso_refractory_ && iso_ticks_ / iso_period_ < iso_cpu_ * 90 / 100) iso_refractory_ = false;
  }

  // test_ret_isorefractory().
  bool test_iso_refractory() {
    if (!iso_refractory_) {
      if (iso_ticks_ / iso_period_ > iso_cpu_) iso_refractory_ = true;
    } else if (iso_ticks_ / iso_period_ < iso_cpu_ * 90 / 100) {
      iso_refractory_ = false;
    }
    return iso_refractory_;
  }

  // The ticks of idle CPUs (not simulated) decay iso_ticks too: when a jiffy's first
  // busy tick arrives, the previous jiffy's idle CPUs and every CPU of the jiffies
  // without any tick are accounted.
  void account_idle_iso_ticks() {
    const int64_t jiffy = jiffies();
    if (jiffy != iso_jiffy_) {
      const int64_t n = ctx_->cpus();
      int64_t idle = iso_jiffy_ < 0 ? 0 : n - ticked_in_jiffy_;
      if (iso_jiffy_ >= 0) idle += n * (jiffy - iso_jiffy_ - 1);
      for (int64_t i = 0; i < idle && iso_ticks_ > 0; ++i) no_iso_tick();
      iso_jiffy_ = jiffy;
      ticked_in_jiffy_ = 0;
    }
    ++ticked_in_jiffy_;
  }

  // update_cpu_clock(): the running task's slice, in microseconds of real run time.
  void charge(Entity& e) {
    const int64_t ran = e.task->sum_exec_ns - e.charged_ns;
    e.charged_ns = e.task->sum_exec_ns;
    if (ran > 0 && e.task->policy != SchedPolicy::kFifo)
      e.time_slice_us -= std::min(ran, ctx_->tick_ns()) / 1000;
  }

  // time_slice_expired(): a full slice and a deadline from now.
  void check_deadline(Entity& e) {
    if (e.time_slice_us > 0) return;
    e.first_time_slice = false;
    e.time_slice_us = timeslice_us();
    e.deadline = jiffies() + deadline_diff(*e.task);
    // Up to 0.304, SCHED_IDLEPRIO adds the longest (nice 19) offset (@52d5a108 l.2228).
    if (idleprio_offset_ && e.task->policy == SchedPolicy::kIdle)
      e.deadline += std::max<int64_t>(
          1, prio_ratios_[39] * rr_interval_ms_ * ctx_->machine().hz / (1000 * 100));
  }

  void push(Task& t) {
    Entity& e = se_[t.id];
    e.prio = prio_of(t);
    e.seq = next_seq_++;
    if (e.prio >= kMaxRtPrio) index_add(e);
    Level& level = levels_[e.prio];
    e.slot = level.entries.size();
    level.entries.push_back({e.deadline, task_timeslice(t), t.id, t.cpu,
                             allowed_everywhere(t)    ? kAnyCpu
                             : t.nr_cpus_allowed == 1 ? static_cast<CpuId>(t.allowed.find_first())
                                                      : kSomeCpus});
    ++level.tasks;
    e.queued = true;
    bitmap_[e.prio / 64] |= uint64_t{1} << (e.prio % 64);
  }

  void remove(Task& t) {
    Entity& e = se_[t.id];
    if (e.prio >= kMaxRtPrio) index_remove(e);
    Level& level = levels_[e.prio];
    level.entries[e.slot].id = kNoTask;
    e.queued = false;
    if (--level.tasks == 0) {
      level.entries.clear();
      bitmap_[e.prio / 64] &= ~(uint64_t{1} << (e.prio % 64));
    } else if (level.entries.size() > 2 * level.tasks + 16) {
      squeeze(level);
    }
  }

  // Drops the holes, keeping the order.
  void squeeze(Level& level) {
    size_t kept = 0;
    for (const QueueEntry& q : level.entries) {
      if (q.id == kNoTask) continue;
      se_[q.id].slot = kept;
      level.entries[kept++] = q;
    }
    level.entries.resize(kept);
  }

  // The same choice without scanning, for a level whose tasks may all run anywhere on a
  // machine where every CPU shares one cache (locality 0 everywhere, so dl = deadline):
  // the tasks are indexed by (deadline, list position); those whose deadline has passed
  // move, for good, to an index by list position. The first of that is the first
  // expired task in list order; else the first of the other is the earliest deadline,
  // ties in list order. Exactly what the scan picks. The indexes are min-heaps whose
  // entries of tasks no longer queued there are dropped when they surface.
  struct IndexEntry {
    int64_t key;  // pending: deadline; expired: seq
    uint64_t seq;
    TaskId id;
    bool operator>(const IndexEntry& o) const { return key != o.key ? key > o.key : seq > o.seq; }
  };
  struct LevelIndex {
    std::vector<IndexEntry> pending, expired;  // heaps (std::greater: smallest on top)
    int restricted = 0;                        // tasks that may not run on every CPU
  };
  static void heap_push(std::vector<IndexEntry>& h, IndexEntry e) {
    h.push_back(e);
    std::push_heap(h.begin(), h.end(), std::greater<>{});
  }
  static void heap_pop(std::vector<IndexEntry>& h) {
    std::pop_heap(h.begin(), h.end(), std::greater<>{});
    h.pop_back();
  }
  // Drops stale entries from the top: the task left, or was queued again since.
  void heap_clean(std::vector<IndexEntry>& h, bool expired) {
    while (!h.empty()) {
      const Entity& e = se_[h.front().id];
      if (e.queued && e.seq == h.front().seq && e.in_expired == expired) return;
      heap_pop(h);
    }
  }
  bool allowed_everywhere(const Task& t) const { return t.nr_cpus_allowed >= ctx_->cpus(); }
  void index_add(Entity& e) {
    LevelIndex& x = index_[e.prio - kMaxRtPrio];
    if (!allowed_everywhere(*e.task)) ++x.restricted;
    e.in_expired = e.deadline < jiffies();
    if (e.in_expired)
      heap_push(x.expired, {static_cast<int64_t>(e.seq), e.seq, e.task->id});
    else
      heap_push(x.pending, {e.deadline, e.seq, e.task->id});
  }
  void index_remove(Entity& e) {
    LevelIndex& x = index_[e.prio - kMaxRtPrio];
    if (!allowed_everywhere(*e.task)) --x.restricted;  // its heap entry goes stale
  }
  Task* indexed_pick(int idx, int64_t now) {
    LevelIndex& x = index_[idx - kMaxRtPrio];
    for (heap_clean(x.pending, false); !x.pending.empty() && x.pending.front().key < now;
         heap_clean(x.pending, false)) {
      const IndexEntry moved = x.pending.front();
      heap_pop(x.pending);
      se_[moved.id].in_expired = true;
      heap_push(x.expired, {static_cast<int64_t>(moved.seq), moved.seq, moved.id});
    }
    heap_clean(x.expired, true);
    const TaskId id = !x.expired.empty() ? x.expired.front().id : x.pending.front().id;
    return &ctx_->task(id);
  }

  // earliest_deadline_task(): see the file comment.
  Task* earliest_deadline_task(CpuId cpu) {
    const int64_t now = jiffies();
    for (int idx = next_level(0); idx < kPrioLimit; idx = next_level(idx + 1)) {
      if (idx >= kMaxRtPrio && flat_locality_ && index_[idx - kMaxRtPrio].restricted == 0) {
        Task* best = indexed_pick(idx, now);
        remove(*best);
        return best;
      }
      int64_t earliest = 0;
      TaskId best_id = kNoTask;
      for (const QueueEntry& q : levels_[idx].entries) {
        if (q.id == kNoTask) continue;
        if (q.only != kAnyCpu && q.only != cpu &&
            (q.only != kSomeCpus || !se_[q.id].task->allowed_on(cpu)))
          continue;
        if (idx < kMaxRtPrio) {
          best_id = q.id;
          break;
        }
        const int64_t dl = q.deadline + locality(q.cpu, cpu) * q.timeslice;
        if (dl < now) {  // already expired: taken at once
          best_id = q.id;
          break;
        }
        if (best_id == kNoTask || dl < earliest) {
          earliest = dl;
          best_id = q.id;
        }
      }
      if (best_id != kNoTask) {
        Task* best = se_[best_id].task;
        remove(*best);
        return best;
      }
    }
    return nullptr;
  }

  // The first non-empty level from `from` on, a word of the bitmap at a time.
  int next_level(int from) const {
    for (int w = from / 64; w < static_cast<int>(bitmap_.size()); ++w) {
      uint64_t bits = bitmap_[w];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      if (bits) return w * 64 + std::countr_zero(bits);
    }
    return kPrioLimit;
  }

  // An idle CPU that is not already being woken: BFS's cpu_idle_map holds a CPU until it
  // schedules, a matter of microseconds, so a CPU already asked counts as taken here (or
  // wake-ups made in the same instant would all pile onto it).
  bool suitable_idle_cpu(const Task& p) const { return p.allowed.intersects(ctx_->idle_cpus()); }

  // resched_best_idle(): rank the allowed idle CPUs from `from`: another die (2), a busy
  // cache partner (1), a busy SMT sibling (4); the first with rank <= 1 wins.
  CpuId best_idle_cpu(const Task& p, CpuId from) const {
    const CpuMask candidates = p.allowed & ctx_->idle_cpus();
    if (candidates.none()) return kNoCpu;
    const CpuMask& running = ctx_->busy_cpus();  // not in BFS's idle map: a current task
    return bfs::ranked_idle_cpu(candidates, from, [&](CpuId c) {
      int rank = locality(from, c) ? 2 : 0;
      if (cache_of_[c].intersects(running)) rank |= 1;
      if (core_of_[c].intersects(running)) rank |= 4;
      return rank;
    });
  }

  // The idle CPU a release wakes for p, looking from `from` (task_cpu(p)).
  CpuId idle_cpu_for(const Task& p, CpuId from) const {
    return idle_choice_ == IdleChoice::kRanked ? best_idle_cpu(p, from)
                                               : idle_cpu_before_0310(p, from);
  }

  // 0.232 and 0.302-0.304's try_preempt(): the task's own CPU if it is idle; else, in CPU
  // order, the first idle one (0.232, cm-kernel @77ada37e l.1041-1066) or the first of
  // the nearest by cache distance (0.304: an idle rq counts as prio PRIO_LIMIT with
  // offset -cache_distance, the latest offset wins; Conap30 @52d5a108 l.1095-1122).
  CpuId idle_cpu_before_0310(const Task& p, CpuId from) const {
    const CpuMask candidates = p.allowed & ctx_->idle_cpus();
    if (candidates.none()) return kNoCpu;
    if (candidates.test(static_cast<size_t>(from))) return from;
    if (idle_choice_ == IdleChoice::kFirst) return static_cast<CpuId>(candidates.find_first());
    CpuId best = kNoCpu;
    candidates.for_each([&](CpuId c) {
      if (best == kNoCpu || locality(from, c) < locality(from, best)) best = c;
    });
    return best;
  }

  void resched_best_idle(const Task& p) {
    const CpuId best = idle_cpu_for(p, p.cpu);
    if (best != kNoCpu) ctx_->resched(best);
  }

  // try_preempt(): an idle CPU, or the CPU running the worst priority, latest deadline
  // (less the cache distance), if the woken task beats it.
  void try_preempt(const Task& p) {
    if (suitable_idle_cpu(p)) {
      resched_best_idle(p);
      return;
    }
    const Entity& pe = se_[p.id];
    CpuId target = kNoCpu;
    int highest_prio = -1;
    int64_t latest = 0;
    if (flat_locality_ && allowed_everywhere(p)) {
      // Every CPU at locality 0 and allowed: the loop's choice is the CPU of the worst
      // running (priority, deadline), its own CPU among equals, else the lowest number.
      target = worst_running_.top();
      if (p.cpu != kNoCpu && worst_running_.key(p.cpu) == worst_running_.key(target))
        target = p.cpu;
      highest_prio = cpu_curr_prio_[target];
      latest = cpu_curr_deadline_[target];
    } else {
      target = worst_running_loop(p, highest_prio, latest);
    }
    if (target == kNoCpu) return;
    // As in 0.318's SMP code: at equal priority only a SCHED_NORMAL task is held back by
    // its later deadline (the UP code holds back every policy).
    if (pe.prio > highest_prio ||
        (pe.prio == highest_prio && p.policy == SchedPolicy::kOther && pe.deadline >= latest))
      return;
    // 0.232's task_preempts_curr() (cm-kernel @77ada37e l.1019-1029): at equal priority
    // only a SCHED_NORMAL task with an earlier deadline preempts.
    if (!cache_distance_ && pe.prio == highest_prio && p.policy != SchedPolicy::kOther) return;
    ctx_->resched(target);
  }

  // try_preempt()'s loop over the allowed CPUs: the worst priority, then the latest
  // deadline less the cache distance, its own CPU among equals.
  CpuId worst_running_loop(const Task& p, int& highest_prio, int64_t& latest) const {
    CpuId target = kNoCpu;
    const int64_t timeslice = task_timeslice(p);
    for (CpuId c = 0; c < ctx_->cpus(); ++c) {
      if (!p.allowed_on(c)) continue;
      const bool busy = ctx_->curr(c) != nullptr;
      const int rq_prio = busy ? cpu_curr_prio_[c] : kPrioLimit;
      if (rq_prio < highest_prio) continue;
      const int64_t rq_deadline = busy ? cpu_curr_deadline_[c] : 0;
      const int64_t offset = rq_deadline - locality(p.cpu, c) * timeslice;
      if (rq_prio > highest_prio || offset > latest || (offset == latest && c == p.cpu)) {
        latest = offset;
        highest_prio = rq_prio;
        target = c;
      }
    }
    return target;
  }

  // rq->rq_prio and rq->rq_deadline of a CPU. A CPU without a current task has last
  // picked nothing, which set (kPrioLimit, 0): what try_preempt's loop reads for it.
  void set_running(CpuId cpu, int prio, int64_t deadline) {
    cpu_curr_prio_[cpu] = prio;
    cpu_curr_deadline_[cpu] = deadline;
    worst_running_.set(cpu, prio, deadline);
  }

  std::string check_invariants() const override {
    for (CpuId c = 0; c < ctx_->cpus(); ++c) {
      if (ctx_->busy_cpus().test(static_cast<size_t>(c)) != (ctx_->curr(c) != nullptr))
        return fmt::format("bfs: CPU {} is busy in the mask and not in curr, or back", c);
      if (!ctx_->curr(c) && (cpu_curr_prio_[c] != kPrioLimit || cpu_curr_deadline_[c] != 0))
        return fmt::format("bfs: CPU {} runs nothing but keeps a running priority", c);
      if (worst_running_.key(c) != WorstRunning::Key{cpu_curr_prio_[c], cpu_curr_deadline_[c]})
        return fmt::format("bfs: CPU {}'s running priority is stale in the index", c);
    }
    if (!worst_running_.consistent()) return "bfs: the index of running priorities is broken";
    return {};
  }

  // The CPU of the worst running (priority, deadline), the lowest number among equals: a
  // tournament tree over the CPUs, O(log n) per change and O(1) to read.
  class WorstRunning {
   public:
    struct Key {
      int prio;
      int64_t deadline;
      bool operator==(const Key&) const = default;
    };
    void reset(int n) {
      leaves_ = 1;
      while (leaves_ < static_cast<size_t>(n)) leaves_ *= 2;
      key_.assign(static_cast<size_t>(n), Key{kPrioLimit, 0});
      node_.assign(2 * leaves_, kNoCpu);
      for (size_t c = 0; c < key_.size(); ++c) node_[leaves_ + c] = static_cast<CpuId>(c);
      for (size_t i = leaves_ - 1; i >= 1; --i) node_[i] = worse(node_[2 * i], node_[2 * i + 1]);
    }
    void set(CpuId cpu, int prio, int64_t deadline) {
      key_[cpu] = Key{prio, deadline};
      for (size_t i = (leaves_ + static_cast<size_t>(cpu)) / 2; i >= 1; i /= 2)
        node_[i] = worse(node_[2 * i], node_[2 * i + 1]);
    }
    CpuId top() const { return node_.size() > 1 ? node_[1] : kNoCpu; }
    const Key& key(CpuId cpu) const { return key_[cpu]; }
    bool consistent() const {
      for (size_t i = 1; i < leaves_; ++i)
        if (node_[i] != worse(node_[2 * i], node_[2 * i + 1])) return false;
      return true;
    }

   private:
    CpuId worse(CpuId a, CpuId b) const {
      if (a == kNoCpu) return b;
      if (b == kNoCpu) return a;
      const Key &x = key_[a], &y = key_[b];
      if (x.prio != y.prio) return x.prio > y.prio ? a : b;
      if (x.deadline != y.deadline) return x.deadline > y.deadline ? a : b;
      return a < b ? a : b;
    }
    size_t leaves_ = 1;
    std::vector<Key> key_;
    std::vector<CpuId> node_;  // node_[1] the root; the leaves from leaves_ on
  };

  int64_t base_rr_interval_ms_;
  bool scale_rr_, scale_rr_ilog2_;
  bool iso_decay_multiplicative_, yield_expires_, idleprio_offset_;
  enum class IdleChoice : uint8_t { kRanked, kNearest, kFirst };
  IdleChoice idle_choice_;
  bool cache_distance_;
  int64_t rr_interval_ms_ = 6;
  std::array<int64_t, 40> prio_ratios_{};
  std::vector<Entity> se_;
  std::array<Level, kPrioLimit> levels_{};
  std::array<uint64_t, 2> bitmap_{};
  std::vector<int> cpu_curr_prio_;
  std::vector<int64_t> cpu_curr_deadline_;   // the running task's deadline, as rq_deadline
  WorstRunning worst_running_;               // the two above, indexed for try_preempt
  std::vector<CpuMask> cache_of_, core_of_;  // the other CPUs of each CPU's cache and core
  bool flat_locality_ = false;               // every CPU pair at locality 0
  std::array<LevelIndex, kPrioLimit - kMaxRtPrio> index_{};
  uint64_t next_seq_ = 0;
  // SCHED_ISO
  int64_t iso_cpu_ = 70;
  bool scan_pick_ = false;  // always scan, never the index
  int64_t iso_period_ = 5001;
  int64_t iso_ticks_ = 0;
  bool iso_refractory_ = false;
  int64_t iso_jiffy_ = -1, ticked_in_jiffy_ = 0;
};

// A release is a row of defaults: the rules it had where they differ from 0.318's.
PolicyInfo bfs_info(const char* name, const char* description, BfsParams defaults = {}) {
  return declare_policy<BfsParams>(
      name, description, BfsParams::table(), defaults,
      [](const BfsParams& p) { return std::make_unique<Bfs>(p); }, /*replaces_every_class=*/true);
}

BfsParams bfs_0311() {
  BfsParams p;
  p.rr_scale_ilog2 = true;
  p.yield_expires = true;
  return p;
}

BfsParams bfs_0304() {
  BfsParams p = bfs_0311();
  p.iso_decay_multiplicative = true;
  p.idleprio_deadline_offset = true;
  p.idle_cpu_choice = "nearest";
  return p;
}

BfsParams bfs_0232() {
  BfsParams p = bfs_0304();
  p.yield_expires = false;  // broken: schedule() restored the slice and deadline
  p.idle_cpu_choice = "first";
  p.cache_distance = false;
  return p;
}

}  // namespace

std::vector<PolicyInfo> bfs_policies() {
  return {bfs_info("bfs", "BFS 0.318 (the newest modelled; see bfs-0.232, bfs-0.304, bfs-0.311)"),
          bfs_info("bfs-0.232",
                   "BFS 0.232 (Sept 2009): the nearest found to 220/221 of E1/E2, which were "
                   "not found; rr 1 + ilog2(CPUs), no cache distance, first idle CPU, yield "
                   "keeps the deadline, ISO decay x(P-1)/P",
                   bfs_0232()),
          bfs_info("bfs-0.304",
                   "BFS 0.304 (Oct 2009, E4): rr 1 + ilog2(CPUs), nearest idle CPU, yield sets "
                   "a new deadline, ISO decay x(P-1)/P, IDLEPRIO deadline offset",
                   bfs_0304()),
          bfs_info("bfs-0.311",
                   "BFS 0.311 (Dec 2009, E3): rr 1 + ilog2(CPUs), yield sets a new deadline",
                   bfs_0311())};
}

}  // namespace schedlab
