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

void PerfettoTraceWriter::begin(const RunInfo& info) {
  info_ = info;
  cpus_.assign(info.cpus, CpuSlice{});
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  write(fmt::format(R"J({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"CPUs"}}}})J",
                    kCpuPid));
  write(fmt::format(R"J({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})J",
                    kTaskPid, json_string("tasks under " + info.policy)));
  for (int c = 0; c < info.cpus; ++c) {
    write(fmt::format(
        R"J({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"CPU {}"}}}})J",
        kCpuPid, c, c));
    write(fmt::format(
        R"J({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})J",
        kCpuPid, c, c));
  }
}

void PerfettoTraceWriter::task_created(const TaskInfo& t) {
  if (static_cast<size_t>(t.id) >= names_.size()) {
    names_.resize(t.id + 1);
    tasks_.resize(t.id + 1);
  }
  names_[t.id] = t.name;
  write(fmt::format(R"J({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":{}}}}})J",
                    kTaskPid, t.id + 1, json_string(fmt::format("{}:{}", t.name, t.id))));
}

void PerfettoTraceWriter::slice(int pid, int tid, const std::string& name, Time start, Time end,
                                const std::string& args) {
  if (start < 0 || end <= start) return;  // start < 0: no open slice
  write(fmt::format(R"J({{"name":{},"ph":"X","pid":{},"tid":{},"ts":{},"dur":{}{}}})J",
                    json_string(name), pid, tid, micros(start), micros(end - start),
                    args.empty() ? "" : ",\"args\":" + args));
}

void PerfettoTraceWriter::close_cpu(CpuId cpu, Time now) {
  CpuSlice& c = cpus_[cpu];
  if (c.task != kNoTask)
    slice(kCpuPid, cpu, fmt::format("{}:{}", names_[c.task], c.task), c.since, now,
          fmt::format(R"J({{"tid":{}}})J", c.task));
  c.since = now;
}

void PerfettoTraceWriter::event(const SchedEvent& e) {
  switch (e.type) {
    case EventType::kSwitch: {
      close_cpu(e.cpu, e.time);
      cpus_[e.cpu].task = e.other;
      if (e.task != kNoTask) {
        TaskSlice& p = tasks_[e.task];
        slice(kTaskPid, e.task + 1, "running", p.running_since, e.time,
              fmt::format(R"J({{"cpu":{}}})J", e.cpu));
        p.running_since = -1;
        if (static_cast<PrevState>(e.detail) == PrevState::kPreempted) p.runnable_since = e.time;
      }
      if (e.other != kNoTask) {
        TaskSlice& n = tasks_[e.other];
        if (n.runnable_since >= 0)
          slice(kTaskPid, e.other + 1, "runnable", n.runnable_since, e.time);
        n.runnable_since = -1;
        n.running_since = e.time;
      }
      break;
    }
    case EventType::kWakeup:
    case EventType::kWakeupNew: {
      TaskSlice& t = tasks_[e.task];
      if (t.running_since < 0 && t.runnable_since < 0) t.runnable_since = e.time;
      write(fmt::format(
          R"J({{"name":"{}","ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"target_cpu":{}}}}})J",
          event_type_name(e.type), kTaskPid, e.task + 1, micros(e.time), e.cpu));
      break;
    }
    case EventType::kMark:
      write(fmt::format(
          R"J({{"name":{},"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"count":{}}}}})J",
          json_string(info_.mark_names.at(e.arg)), kTaskPid, e.task + 1, micros(e.time), e.value));
      break;
    case EventType::kDlJob:
      write(fmt::format(
          R"J({{"name":"{}","ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"lateness_ns":{}}}}})J",
          e.value > 0 ? "deadline miss" : "dl job", kTaskPid, e.task + 1, micros(e.time), e.value));
      break;
    case EventType::kMigrate:
      write(fmt::format(
          R"J({{"name":"migrate","ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"from":{},"to":{}}}}})J",
          kTaskPid, e.task + 1, micros(e.time), e.cpu, e.arg));
      break;
    default:
      break;
  }
}

void PerfettoTraceWriter::end(Time t) {
  for (CpuId c = 0; c < static_cast<CpuId>(cpus_.size()); ++c) close_cpu(c, t);
  for (size_t id = 0; id < tasks_.size(); ++id) {
    slice(kTaskPid, static_cast<int>(id) + 1, "running", tasks_[id].running_since, t);
    slice(kTaskPid, static_cast<int>(id) + 1, "runnable", tasks_[id].runnable_since, t);
  }
  out_ << "\n]}\n";
  out_.flush();
}

}  // namespace schedlab
