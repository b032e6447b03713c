#include "report/events_csv.h"

#include <fmt/format.h>

namespace schedlab {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

void EventsCsvWriter::begin(const RunInfo& info) {
  info_ = info;
  out_ << "time_ns,event,cpu,tid,task,other_tid,other_task,info\n";
}

void EventsCsvWriter::task_created(const TaskInfo& t) {
  if (static_cast<size_t>(t.id) >= names_.size()) names_.resize(t.id + 1);
  names_[t.id] = t.name;
}

std::string EventsCsvWriter::name(TaskId id) const {
  return id == kNoTask ? std::string("<idle>") : csv_field(names_[id]);
}

void EventsCsvWriter::event(const SchedEvent& e) {
  std::string info;
  switch (e.type) {
    case EventType::kSwitch: {
      const auto s = static_cast<PrevState>(e.detail);
      if (e.task == kNoTask) break;
      if (e.arg == kInferredSwitch) {
        info = "prev_state=inferred";
        break;
      }
      info =
          s == PrevState::kPreempted ? "prev_state=R"
          : s == PrevState::kExited
              ? "prev_state=X"
              : fmt::format("prev_state=S:{}", block_reason_name(static_cast<BlockReason>(e.arg)));
      break;
    }
    case EventType::kMigrate:
      info = fmt::format("dest_cpu={}", e.arg);
      break;
    case EventType::kBlock: {
      const auto reason = static_cast<BlockReason>(e.detail);
      const auto& names = info_.block_object_names[static_cast<size_t>(reason)];
      info = block_reason_name(reason);
      if (e.arg >= 0 && static_cast<size_t>(e.arg) < names.size()) info += ":" + names[e.arg];
      break;
    }
    case EventType::kMark:
      info = fmt::format("{}={}", info_.mark_names.at(e.arg), e.value);
      break;
    case EventType::kHolderPreempted:
      info = fmt::format("spinlock={}", e.arg);
      break;
    case EventType::kDlJob:
      info = fmt::format("lateness_ns={}", e.value);
      break;
    case EventType::kTimer:
      info = fmt::format("slack_ns={} period_us={} c_duration_us={}", e.value - e.time, e.arg,
                         e.other);
      break;
    case EventType::kLost:
      info = fmt::format("lost={}", e.value);
      break;
    default:
      break;
  }
  const TaskId other = e.type == EventType::kTimer ? kNoTask : e.other;  // kTimer: a number
  out_ << e.time << ',' << event_type_name(e.type) << ',' << e.cpu << ',' << e.task << ','
       << (e.task == kNoTask && e.type == EventType::kLost ? std::string() : name(e.task)) << ','
       << other << ',' << (other == kNoTask ? std::string() : name(other)) << ',' << csv_field(info)
       << '\n';
}

void EventsCsvWriter::end(Time) {
  out_.flush();
}

}  // namespace schedlab
