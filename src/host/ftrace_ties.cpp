// Records of one timestamp on several CPUs, put in an order the tasks' states allow.
// A trace.dat keeps one ring buffer per CPU, and a reader merges them by time alone
// (libtracecmd, like the kernel's own `trace` file, takes the lowest CPU first at a
// tie), so the order of two records of the same nanosecond on two CPUs is lost: a
// simulated run has many (a wake-up on CPU 1 and the switch to that task on an idle
// CPU 0 in the same nanosecond), and taken CPU by CPU they read as a task switched in
// before it was woken. Within such a group each CPU's records keep their order, and the
// next record is the head of the lowest CPU whose head the states allow: a switch to a
// task that is not asleep (nor new, with its fork or wake-up still to come) and not
// running elsewhere, a wake-up (or its start, sched_waking) of a task that is asleep or
// that other CPUs record nothing more of in this group, and a wake-up after its
// sched_waking on another CPU. One more case needs the records after the group: a task
// woken while it blocks (the wake-up before its switch-out, which then no longer ends a
// sleep: the kernel lets a wake-up that finds the task still on its CPU set it running)
// is told by its next record after the group being a wake-up, which only a sleeping task
// can have; then the wake-up comes before the switch-out. When no head is allowed (a trace
// that lost events), the lowest CPU's head comes next, as the merge had it.
#include <map>
#include <set>

#include "host/ftrace_record.h"

namespace schedlab {

namespace {

using Kind = FtraceKind;

class TaskStates {
 public:
  void apply(const FtraceRecord& r) {
    if (r.kind == Kind::kWaking) return;  // changes no state; its sched_wakeup does
    if (r.a.pid > 0) seen_.insert(r.a.pid);
    if (r.b.pid > 0) seen_.insert(r.b.pid);
    switch (r.kind) {
      case Kind::kSwitch:
        if (r.a.pid > 0) {
          running_.erase(r.a.pid);
          if (r.prev_state != PrevState::kPreempted) asleep_.insert(r.a.pid);
        }
        if (r.b.pid > 0) {
          running_[r.b.pid] = r.cpu;
          asleep_.erase(r.b.pid);
        }
        break;
      case Kind::kWakeup:
      case Kind::kWakeupNew:
        asleep_.erase(r.a.pid);
        break;
      case Kind::kFork:  // runnable at its sched_wakeup_new
        asleep_.insert(r.b.pid);
        break;
      default:
        break;
    }
  }
  bool asleep(int64_t pid) const { return asleep_.count(pid) > 0; }
  bool seen(int64_t pid) const { return seen_.count(pid) > 0; }
  CpuId running_on(int64_t pid) const {
    const auto it = running_.find(pid);
    return it == running_.end() ? kNoCpu : it->second;
  }

 private:
  std::map<int64_t, CpuId> running_;
  std::set<int64_t> asleep_, seen_;
};

// One CPU's records of the group, in their order: indexes into the group.
struct CpuQueue {
  CpuId cpu = 0;
  std::vector<size_t> items;
  size_t next = 0;
  bool empty() const { return next == items.size(); }
};

// A record that `is` still to come in the group on another CPU than `cpu`.
template <class Is>
bool pending_elsewhere(const std::vector<FtraceRecord>& group, const std::vector<CpuQueue>& queues,
                       CpuId cpu, Is is) {
  for (const CpuQueue& q : queues) {
    if (q.cpu == cpu) continue;
    for (size_t k = q.next; k < q.items.size(); ++k)
      if (is(group[q.items[k]])) return true;
  }
  return false;
}

// A state record of `pid` still to come on another CPU.
bool state_elsewhere(const std::vector<FtraceRecord>& group, const std::vector<CpuQueue>& queues,
                     CpuId cpu, int64_t pid) {
  return pending_elsewhere(group, queues, cpu, [pid](const FtraceRecord& r) {
    return is_state_record(r.kind) && (r.a.pid == pid || r.b.pid == pid);
  });
}

// A sched_waking of `pid` still to come on another CPU: the start of a wake-up, which
// comes before its sched_wakeup.
bool waking_elsewhere(const std::vector<FtraceRecord>& group, const std::vector<CpuQueue>& queues,
                      CpuId cpu, int64_t pid) {
  return pending_elsewhere(group, queues, cpu, [pid](const FtraceRecord& r) {
    return r.kind == Kind::kWaking && r.a.pid == pid;
  });
}

// A fork, wake-up or new task's wake-up of `pid` still to come in the group.
bool wakes(const std::vector<FtraceRecord>& group, const std::vector<CpuQueue>& queues,
           int64_t pid) {
  for (const CpuQueue& q : queues)
    for (size_t k = q.next; k < q.items.size(); ++k) {
      const FtraceRecord& r = group[q.items[k]];
      if ((r.kind == Kind::kFork && r.b.pid == pid) ||
          ((r.kind == Kind::kWakeup || r.kind == Kind::kWakeupNew) && r.a.pid == pid))
        return true;
    }
  return false;
}

// A wake-up (or its start) of `pid` still to come on another CPU than `cpu`.
bool woken_elsewhere(const std::vector<FtraceRecord>& group, const std::vector<CpuQueue>& queues,
                     CpuId cpu, int64_t pid) {
  return pending_elsewhere(group, queues, cpu, [pid](const FtraceRecord& r) {
    return (r.kind == Kind::kWakeup || r.kind == Kind::kWaking) && r.a.pid == pid;
  });
}

// The records after the group (recs from `after`) next name `pid` in a wake-up: it is
// asleep at the group's end. Looked for within a bounded window (a judgement: far more
// records than a task's next one is ever away in the traces seen, and a bound on the cost).
bool next_is_wakeup(const std::vector<FtraceRecord>& recs, size_t after, int64_t pid) {
  constexpr size_t kWindow = 1 << 16;
  for (size_t k = after; k < recs.size() && k < after + kWindow; ++k) {
    const FtraceRecord& r = recs[k];
    if ((r.kind == Kind::kWakeup || r.kind == Kind::kWaking) && r.a.pid == pid) return true;
    if (is_state_record(r.kind) && (r.a.pid == pid || r.b.pid == pid)) return false;
  }
  return false;
}

struct Group {
  const std::vector<FtraceRecord>& records;
  const std::vector<CpuQueue>& queues;
  const std::vector<FtraceRecord>& all;  // the whole trace
  size_t after;                          // its first record after the group
};

bool allowed(const FtraceRecord& r, const TaskStates& st, const Group& g) {
  if (r.kind == Kind::kSwitch) {
    const int64_t prev = r.a.pid;
    // a task woken on another CPU as it blocks: the wake-up first
    if (prev > 0 && r.prev_state != PrevState::kPreempted &&
        woken_elsewhere(g.records, g.queues, r.cpu, prev) && next_is_wakeup(g.all, g.after, prev))
      return false;
    const int64_t next = r.b.pid;
    if (next <= 0) return true;
    const CpuId on = st.running_on(next);
    // a task not seen before runs after its fork or wake-up in the group, if it has one
    const bool waiting = st.asleep(next) || (!st.seen(next) && wakes(g.records, g.queues, next));
    return !waiting && (on == kNoCpu || on == r.cpu);
  }
  // a task that is not asleep is woken once what other CPUs still record of it is done
  // (its switch-out as it blocks, or its birth), unless it is woken as it blocks
  if (r.kind == Kind::kWakeup && waking_elsewhere(g.records, g.queues, r.cpu, r.a.pid))
    return false;
  if (r.kind == Kind::kWakeup || r.kind == Kind::kWaking) {
    const int64_t pid = r.a.pid;
    if (st.asleep(pid) || !state_elsewhere(g.records, g.queues, r.cpu, pid)) return true;
    const CpuId on = st.running_on(pid);
    return on != kNoCpu && on != r.cpu && next_is_wakeup(g.all, g.after, pid);
  }
  return true;
}

void order_group(std::vector<FtraceRecord>& recs, size_t from, size_t to, TaskStates& st) {
  std::vector<FtraceRecord> group(std::make_move_iterator(recs.begin() + static_cast<long>(from)),
                                  std::make_move_iterator(recs.begin() + static_cast<long>(to)));
  std::map<CpuId, CpuQueue> by_cpu;
  for (size_t k = 0; k < group.size(); ++k) {
    CpuQueue& q = by_cpu[group[k].cpu];
    q.cpu = group[k].cpu;
    q.items.push_back(k);
  }
  std::vector<CpuQueue> queues;
  for (auto& [cpu, q] : by_cpu) queues.push_back(std::move(q));
  const Group g{group, queues, recs, to};
  for (size_t out = from; out < to; ++out) {
    CpuQueue* pick = nullptr;
    for (CpuQueue& q : queues)
      if (!q.empty() && allowed(group[q.items[q.next]], st, g)) {
        pick = &q;
        break;
      }
    if (!pick)
      for (CpuQueue& q : queues)
        if (!q.empty()) {
          pick = &q;
          break;
        }
    FtraceRecord& r = group[pick->items[pick->next++]];
    st.apply(r);
    recs[out] = std::move(r);
  }
}

}  // namespace

void order_cpu_ties(std::vector<FtraceRecord>& recs) {
  TaskStates st;
  for (size_t i = 0; i < recs.size();) {
    size_t j = i + 1;
    bool cpus = false;
    while (j < recs.size() && recs[j].time == recs[i].time) cpus |= recs[j++].cpu != recs[i].cpu;
    if (cpus) {
      order_group(recs, i, j, st);
    } else {
      for (size_t k = i; k < j; ++k) st.apply(recs[k]);
    }
    i = j;
  }
}

}  // namespace schedlab
