// The event stream: the one format in which the simulator and the host recorder
// report what happened, and the only input of the analyzer and the writers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/types.h"

namespace schedlab {

enum class EventType : uint8_t {
  kSwitch,           // cpu; task = prev (kNoTask: idle), other = next; detail = PrevState;
                     // arg = kStartState: not a switch, what a recorded CPU ran when it began
  kWakeup,           // task woken onto cpu; other = waker
  kWakeupNew,        // a new task placed on cpu; other = parent
  kMigrate,          // task moves: cpu = from, arg = to
  kFork,             // task = parent, other = child
  kExit,             // task exits on cpu
  kBlock,            // task blocks: detail = BlockReason, arg = object index
  kMark,             // application mark: arg = mark index, value = count
  kDlJob,            // a SCHED_DEADLINE job ended (the task blocked, yielded or exited):
                     // value = end - absolute deadline (> 0: a miss)
  kHolderPreempted,  // a task found spinlock `arg` held by `task`, which was runnable but
                     // not running (preempted): once per such holder episode; other = waiter
  kTimer,            // task reached an rt-app `timer` step (rt-app.c run(), rtapp_timer):
                     // value = the expiry it waits for (t_next, absolute), arg = the
                     // period in us (c_period), other = the run/runtime configured since
                     // its previous timer step in us (c_duration); value <= time: late
  kLost,             // a recording lost events on cpu (buffer overrun): value = how many,
                     // -1 when the trace does not say
  kWaking,           // a recording only: task's wake-up began on cpu (its sched_waking, in
                     // try_to_wake_up); other = waker. Its kWakeup follows, on the target
                     // CPU once the IPI arrives (ttwu_queue). A simulated wake-up is one
                     // instant: its kWakeup alone.
};

enum class PrevState : uint8_t { kPreempted, kBlocked, kExited };
constexpr int32_t kStartState = -1;
// A switch's arg when a recording did not hold it: the task a later line shows running
// on the CPU is not the one the last recorded switch left there (lost events).
constexpr int32_t kInferredSwitch = -2;

enum class BlockReason : uint8_t {
  kSleep,
  kTimer,
  kMutex,
  kCondvar,
  kBarrier,
  kSuspend,
  kProgress,
  kSpinSleep,
  kSpinBlock,
  kSemaphore,
  kLwLock,       // queued on a PostgreSQL LWLock, asleep on its semaphore
  kInnodbRwLock  // waiting on an InnoDB rw-lock's event
};

const char* event_type_name(EventType t);
const char* block_reason_name(BlockReason r);

struct SchedEvent {
  Time time = 0;
  EventType type = EventType::kSwitch;
  uint8_t detail = 0;
  CpuId cpu = kNoCpu;
  TaskId task = kNoTask;
  TaskId other = kNoTask;
  int32_t arg = 0;
  int64_t value = 0;
};

struct TaskInfo {
  TaskId id = kNoTask;
  std::string name;
  TaskId parent = kNoTask;
  SchedPolicy policy = SchedPolicy::kOther;
  int nice = 0;
  int rt_priority = 0;
  CpuMask allowed;
  Time created_ns = 0;
  // A recording: when the task's lines first show the prio its policy and nice come from
  // (a thread may set its own after it starts); 0 in a simulation, which sets them at once.
  Time policy_since_ns = 0;
  // A recording: the policy and nice its first lines showed, when those were others than
  // the ones from policy_since_ns (a thread that set its own, with sched_setattr or
  // nice, after it started); none: the same.
  struct StartedAs {
    SchedPolicy policy = SchedPolicy::kOther;
    int nice = 0;
    int rt_priority = 0;
  };
  std::optional<StartedAs> started_as;
  // A recording's kernel thread id and thread group id (0: not known, as in a simulation).
  int64_t pid = 0, tgid = 0;
  // A recording's comm, the kernel's name of the thread, when `name` is another (a comm
  // several pids share is named "comm:pid"; a run names its own threads); "": `name`.
  std::string comm;
  // False for a task a recording saw beside the workload it ran (a kernel thread, another
  // process): it counts for the CPUs, switches and migrations, not in the task metrics.
  bool workload = true;
};

// What a consumer needs to decode the stream.
struct RunInfo {
  std::string policy;
  uint64_t seed = 0;
  int cpus = 1;
  // The trace clock at time 0 of the stream (a recording's first event; 0 in a simulation).
  Time origin_ns = 0;
  // The generator that made the workload ("" for none), for the program's own units.
  std::string generator;
  std::vector<std::string> mark_names;
  // Names of the objects a kBlock event's arg indexes, per BlockReason.
  std::vector<std::vector<std::string>> block_object_names;
  // How many tasks start at time 0 (0: not known), for a sink to reserve its per-task
  // storage: 100,000 tasks' rows grown one task at a time were moved ~17 times each.
  size_t tasks_at_start = 0;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void begin(const RunInfo&) {}
  virtual void task_created(const TaskInfo&) {}
  virtual void affinity_changed(TaskId, const CpuMask&, Time) {}
  // A task's policy, nice or RT priority changed after it was created (a phase's, as
  // sched_setattr); `t` has the new ones. The kernel traces no event for it: its later
  // records show the new prio.
  virtual void sched_changed(const TaskInfo&, Time) {}
  virtual void event(const SchedEvent& e) = 0;
  virtual void end(Time) {}
};

// Forwards to several sinks in order.
class SinkList : public EventSink {
 public:
  void add(EventSink* s) { sinks_.push_back(s); }
  void begin(const RunInfo& i) override {
    for (auto* s : sinks_) s->begin(i);
  }
  void task_created(const TaskInfo& t) override {
    for (auto* s : sinks_) s->task_created(t);
  }
  void affinity_changed(TaskId id, const CpuMask& m, Time t) override {
    for (auto* s : sinks_) s->affinity_changed(id, m, t);
  }
  void sched_changed(const TaskInfo& info, Time t) override {
    for (auto* s : sinks_) s->sched_changed(info, t);
  }
  void event(const SchedEvent& e) override {
    for (auto* s : sinks_) s->event(e);
  }
  void end(Time t) override {
    for (auto* s : sinks_) s->end(t);
  }

 private:
  std::vector<EventSink*> sinks_;
};

}  // namespace schedlab
