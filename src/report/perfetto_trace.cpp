#include "report/perfetto_trace.h"

#include <fmt/format.h>

#include "report/json_text.h"

namespace schedlab {
namespace {

constexpr int kCpuPid = 1;
constexpr int kTaskPid = 2;

std::string micros(Time ns) {
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

}  // namespace

void PerfettoTraceWriter::write(const std::string& json) {
  out_ << (first_ ? "\n" : ",\n") << json;
  first_ = false;
}

int PerfettoTraceWriter::pid_of(TaskId id) const {
  return recorded_ ? static_cast<int>(tgids_[id]) : kTaskPid;
}
int PerfettoTraceWriter::tid_of(TaskId id) const {
  return recorded_ ? static_cast<int>(pids_[id]) : id + 1;
}
std::string PerfettoTraceWriter::ts(Time t) const {
  return micros(origin_ + t);
}

void PerfettoTraceWriter::begin(const RunInfo& info) {
  info_ = info;
  recorded_ = info.origin_ns > 0;
  origin_ = recorded_ && !from_zero_ ? info.origin_ns : 0;
  cpu_pid_ = recorded_ ? 0 : kCpuPid;
  cpus_.assign(info.cpus, CpuSlice{});
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  write(fmt::format(R"J({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"CPUs"}}}})J",
                    cpu_pid_));
  if (!recorded_)
    write(fmt::format(R"J({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})J",
                      kTaskPid, json_string("tasks under " + info.policy)));
  for (int c = 0; c < info.cpus; ++c) {
    write(fmt::format(
        R"J({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"CPU {}"}}}})J",
        cpu_pid_, c, c));
    write(fmt::format(
        R"J({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})J",
        cpu_pid_, c, c));
  }
}

void PerfettoTraceWriter::task_created(const TaskInfo& t) {
  if (static_cast<size_t>(t.id) >= names_.size()) {
    names_.resize(t.id + 1);
    tasks_.resize(t.id + 1);
    pids_.resize(t.id + 1);
    tgids_.resize(t.id + 1);
  }
  names_[t.id] = t.name;
  pids_[t.id] = t.pid;
  tgids_[t.id] = t.tgid > 0 ? t.tgid : t.pid;
  if (recorded_ && named_processes_.insert(tgids_[t.id]).second)
    write(fmt::format(
        R"J({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})J", tgids_[t.id],
        json_string(t.pid == tgids_[t.id] ? t.name : fmt::format("pid {}", tgids_[t.id]))));
  write(fmt::format(R"J({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":{}}}}})J",
                    pid_of(t.id), tid_of(t.id),
                    json_string(fmt::format("{}:{}", t.name, recorded_ ? t.pid : t.id))));
}

void PerfettoTraceWriter::slice(int pid, int tid, const std::string& name, Time start, Time end,
                                const std::string& args) {
  if (start < 0 || end <= start) return;  // start < 0: no open slice
  write(fmt::format(R"J({{"name":{},"ph":"X","pid":{},"tid":{},"ts":{},"dur":{}{}}})J",
                    json_string(name), pid, tid, ts(start), micros(end - start),
                    args.empty() ? "" : ",\"args\":" + args));
}

void PerfettoTraceWriter::close_cpu(CpuId cpu, Time now) {
  CpuSlice& c = cpus_[cpu];
  if (c.task != kNoTask)
    slice(cpu_pid_, cpu, fmt::format("{}:{}", names_[c.task], recorded_ ? pids_[c.task] : c.task),
          c.since, now, fmt::format(R"J({{"tid":{}}})J", recorded_ ? pids_[c.task] : c.task));
  c.since = now;
}

void PerfettoTraceWriter::event(const SchedEvent& e) {
  switch (e.type) {
    case EventType::kSwitch: {
      close_cpu(e.cpu, e.time);
      cpus_[e.cpu].task = e.other;
      if (e.task != kNoTask) {
        TaskSlice& p = tasks_[e.task];
        slice(pid_of(e.task), tid_of(e.task), "running", p.running_since, e.time,
              fmt::format(R"J({{"cpu":{}}})J", e.cpu));
        p.running_since = -1;
        if (static_cast<PrevState>(e.detail) == PrevState::kPreempted) p.runnable_since = e.time;
      }
      if (e.other != kNoTask) {
        TaskSlice& n = tasks_[e.other];
        if (n.runnable_since >= 0)
          slice(pid_of(e.other), tid_of(e.other), "runnable", n.runnable_since, e.time);
        n.runnable_since = -1;
        n.running_since = e.time;
      }
      break;
    }
    case EventType::kWaking:  // runnable from here, as Perfetto reads sched_waking
    case EventType::kWakeup:
    case EventType::kWakeupNew: {
      TaskSlice& t = tasks_[e.task];
      if (t.running_since < 0 && t.runnable_since < 0) t.runnable_since = e.time;
      write(fmt::format(
          R"J({{"name":"{}","ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"target_cpu":{}}}}})J",
          event_type_name(e.type), pid_of(e.task), tid_of(e.task), ts(e.time),
          e.type == EventType::kWaking && e.arg >= 0 ? e.arg : e.cpu));
      break;
    }
    case EventType::kMark:
      write(fmt::format(
          R"J({{"name":{},"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"count":{}}}}})J",
          json_string(info_.mark_names.at(e.arg)), pid_of(e.task), tid_of(e.task), ts(e.time),
          e.value));
      break;
    case EventType::kDlJob:
      write(fmt::format(
          R"J({{"name":"{}","ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"lateness_ns":{}}}}})J",
          e.value > 0 ? "deadline miss" : "dl job", pid_of(e.task), tid_of(e.task), ts(e.time),
          e.value));
      break;
    case EventType::kMigrate:
      write(fmt::format(
          R"J({{"name":"migrate","ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"from":{},"to":{}}}}})J",
          pid_of(e.task), tid_of(e.task), ts(e.time), e.cpu, e.arg));
      break;
    default:
      break;
  }
}

void PerfettoTraceWriter::end(Time t) {
  for (CpuId c = 0; c < static_cast<CpuId>(cpus_.size()); ++c) close_cpu(c, t);
  for (size_t id = 0; id < tasks_.size(); ++id) {
    const auto task = static_cast<TaskId>(id);
    slice(pid_of(task), tid_of(task), "running", tasks_[id].running_since, t);
    slice(pid_of(task), tid_of(task), "runnable", tasks_[id].runnable_since, t);
  }
  out_ << "\n]}\n";
  out_.flush();
}

}  // namespace schedlab
