// Workload extraction (docs/replay.md): the event stream of a recorded trace (read with
// FtraceOptions::wakers, so each wake-up names its waker) turned into one program per
// selected thread, in the scenario vocabulary, so that the recorded program can be
// replayed under any scheduler:
// - CPU bursts: the CPU time from being woken (or forked) to blocking, preemptions
//   removed, as `run`;
// - a block ended by another selected thread: a `sem_wait` on the semaphore of that
//   (waker, wakee) edge, which the waker `sem_post`s at the point of its own program
//   where the trace shows the wake-up; any other end (interrupt, idle, an unselected
//   thread): a `sleep` of the observed length, or a `timer` (its grid's origin given)
//   where the task's wake-ups are periodic within the tolerance;
// - `sched_process_fork` of a selected child by a selected parent: a `fork` of the
//   child's template; an exit ends the program.
// Repeated stretches collapse into looped phases (loops.h). Nothing is invented: an edge
// exists only where a line shows one selected thread waking another.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "extract/deadline_params.h"
#include "util/types.h"

namespace schedlab {

struct ExtractOptions {
  std::vector<std::string> comm_patterns;  // shell patterns on the task's name or comm
  std::vector<int64_t> pids;               // a pid or a tgid
  int64_t children_of = 0;                 // > 0: the threads this pid forks (a recorder's command)
  Time from_ns = -1, to_ns = -1;           // the stream's clock (0 = the trace's start)
  bool exact = false;                      // no loops: every burst kept
  bool softirq_wakers = false;             // FtraceOptions::softirq_wakers
  int tolerance_percent = 10;              // loop and timer matching
  Time tolerance_floor_ns = 2000;          // ... and at least this much
  int timer_min_periods = 4;               // wake-ups needed to call a task periodic
  std::vector<DlGiven> dl;                 // SCHED_DEADLINE parameters (--dl)
};

// One step of an extracted program.
struct XStep {
  enum class Kind : uint8_t { kRun, kSleep, kTimer, kPost, kWait, kFork } kind = Kind::kRun;
  Time ns = 0;        // run, sleep: duration; timer: period
  int32_t ref = 0;    // post, wait: edge index; fork: task index; timer: task index
  bool sync = false;  // post: the waker blocks right after (a pipe write then a read)
  bool operator==(const XStep&) const = default;
};

struct XPhase {
  int64_t loop = 1;
  std::vector<XStep> steps;
  bool started_as = false;  // before the task's policy change: run as XTask::started_as
};

struct XTask {
  std::string name;
  int64_t pid = 0, tgid = 0;
  SchedPolicy policy = SchedPolicy::kOther;
  int nice = 0, rt_priority = 0;
  // What it ran as before it changed its own policy or nice (TaskInfo::started_as): the
  // phases marked started_as.
  std::optional<TaskInfo::StartedAs> started_as;
  bool forked = false;  // started by its parent's fork (instance 0)
  Time delay_ns = 0;    // start of a task that is not forked
  // Its sleeps are `timer` steps: the grid's origin (the timer's origin_ns).
  std::optional<Time> timer_origin_ns;
  Time cpu_ns = 0;  // total CPU time the trace shows (within the window)
  size_t bursts = 0, edges_in = 0, sleeps = 0, unknown_wakers = 0;
  // SCHED_DEADLINE (policy kDeadline): as given (--dl), else inferred from the trace
  // (dl_inferred); all 0 when neither was possible (the task runs as SCHED_OTHER).
  Time dl_runtime_ns = 0, dl_deadline_ns = 0, dl_period_ns = 0;
  bool dl_inferred = false;
  std::vector<XPhase> phases;
};

struct XEdge {
  int32_t waker = 0, wakee = 0;  // task indexes
  size_t posts = 0;
};

struct ExtractedWorkload {
  int cpus = 1;
  Time span_ns = 0;  // window length
  std::vector<XTask> tasks;
  std::vector<XEdge> edges;
  std::vector<std::string> notes;  // what could not be represented and how it was approximated
  // A mark the first task makes at its program's end (extract --end-mark): the program's
  // own count of its work as it printed it (x264's frames), so that a sweep's
  // marks.NAME.per_second is that count over the replay's duration. Empty: none.
  std::string end_mark;
  int64_t end_mark_count = 0;
  // The affinity of every task (extract --cpus): a trace does not show affinity
  // (sched_migrate_task gives the moves, not the mask). Empty: every CPU.
  std::vector<int> cpus_of_every_task;
};

// Consumes the stream of one trace. Throws InputError (file "", key "selection"/"events")
// from result() when nothing is selected or the trace has no wake-ups.
class WorkloadExtractor : public EventSink {
 public:
  explicit WorkloadExtractor(ExtractOptions options);
  ~WorkloadExtractor() override;
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override;
  void event(const SchedEvent& e) override;
  void end(Time t) override;
  ExtractedWorkload result(const std::string& file);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The name of an edge's semaphore: "waker>wakee".
std::string edge_name(const ExtractedWorkload& w, const XEdge& e);

// The scenario file: rt-app tasks plus `machine` (the given file name, or a flat machine
// of the trace's CPU count) and a `_extract` note object... see docs/replay.md.
std::string scenario_json(const ExtractedWorkload& w, const std::string& source,
                          const std::string& machine);

}  // namespace schedlab

namespace schedlab {

struct FtraceStats;

// parse_trace_file with wakers, into a WorkloadExtractor.
ExtractedWorkload extract_trace_file(const std::string& path, const ExtractOptions& options,
                                     FtraceStats* stats = nullptr);

}  // namespace schedlab
