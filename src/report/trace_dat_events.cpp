#include "report/trace_dat_events.h"

#include <fmt/format.h>

namespace schedlab {

namespace {

// Event ids: ftrace's print is TRACE_PRINT (5) in every kernel; a kernel numbers its
// tracepoints as it registers them, so any ids do as long as the records use them.
constexpr uint16_t kPrintId = 5;
constexpr uint16_t kSwitchId = 316, kWakeupNewId = 317, kWakeupId = 318, kWakingId = 319,
                   kMigrateId = 320, kForkId = 321, kExitId = 322;

// include/linux/trace_events.h: TRACE_FLAG_IRQS_OFF, TRACE_FLAG_HARDIRQ.
constexpr uint8_t kFlagIrqsOff = 0x01, kFlagHardirq = 0x08;

struct Field {
  const char* decl;  // "char prev_comm[16]"
  int offset, size;
  bool is_signed;
};

constexpr int kCommonSize = 8;

std::string format_file(const char* name, uint16_t id, std::initializer_list<Field> fields,
                        const char* print_fmt) {
  const auto line = [](const Field& f) {
    return fmt::format("\tfield:{};\toffset:{};\tsize:{};\tsigned:{};\n", f.decl, f.offset, f.size,
                       f.is_signed ? 1 : 0);
  };
  std::string s = fmt::format("name: {}\nID: {}\nformat:\n", name, id);
  for (const Field& f : {Field{"unsigned short common_type", 0, 2, false},
                         Field{"unsigned char common_flags", 2, 1, false},
                         Field{"unsigned char common_preempt_count", 3, 1, false},
                         Field{"int common_pid", 4, 4, true}})
    s += line(f);
  s += "\n";
  for (const Field& f : fields) s += line(f);
  return s + "\nprint fmt: " + print_fmt + "\n";
}

// sched_wakeup, sched_waking and sched_wakeup_new share one layout.
std::string wakeup_format(const char* name, uint16_t id) {
  return format_file(name, id,
                     {{"char comm[16]", 8, 16, false},
                      {"pid_t pid", 24, 4, true},
                      {"int prio", 28, 4, true},
                      {"int target_cpu", 32, 4, true}},
                     R"("comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, )"
                     R"(REC->prio, REC->target_cpu)");
}

// The record's bytes, little endian, built field by field at the format's offsets.
class Bytes {
 public:
  explicit Bytes(size_t fixed) : b_(fixed, '\0') {}
  void u8(size_t at, uint64_t v) { b_[at] = static_cast<char>(v & 0xff); }
  void u16(size_t at, uint64_t v) { put(at, v, 2); }
  void u32(size_t at, uint64_t v) { put(at, v, 4); }
  void u64(size_t at, uint64_t v) { put(at, v, 8); }
  void i32(size_t at, int64_t v) { put(at, static_cast<uint64_t>(v), 4); }
  void i64(size_t at, int64_t v) { put(at, static_cast<uint64_t>(v), 8); }
  void comm16(size_t at, const std::string& comm) { b_.replace(at, comm.size(), comm); }
  // A __data_loc string: the field holds its length (with the NUL) << 16 | its offset,
  // and the string follows the fixed fields.
  void data_loc(size_t at, const std::string& s) {
    u32(at, (s.size() + 1) << 16 | b_.size());
    append_string(s);
  }
  // A char[] field at the end of the record (the print event's buf).
  void append_string(const std::string& s) {
    b_ += s;
    b_ += '\0';
  }
  std::string done() {
    b_.resize((b_.size() + 3) / 4 * 4, '\0');
    return std::move(b_);
  }

 private:
  void put(size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      b_[at + static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  }
  std::string b_;
};

uint16_t id_of(KernelEvent e) {
  switch (e) {
    case KernelEvent::kSwitch:
      return kSwitchId;
    case KernelEvent::kWaking:
      return kWakingId;
    case KernelEvent::kWakeup:
      return kWakeupId;
    case KernelEvent::kWakeupNew:
      return kWakeupNewId;
    case KernelEvent::kMigrate:
      return kMigrateId;
    case KernelEvent::kFork:
      return kForkId;
    case KernelEvent::kExit:
      return kExitId;
    case KernelEvent::kMark:
      return kPrintId;
  }
  return 0;
}

size_t fixed_size(KernelEvent e) {
  switch (e) {
    case KernelEvent::kSwitch:
      return 64;
    case KernelEvent::kWaking:
    case KernelEvent::kWakeup:
    case KernelEvent::kWakeupNew:
      return 36;
    case KernelEvent::kMigrate:
      return 28;
    case KernelEvent::kFork:
      return 24;
    case KernelEvent::kExit:
      return 33;
    case KernelEvent::kMark:
      return 16;
  }
  return kCommonSize;
}

}  // namespace

std::string kernel_comm(const std::string& comm) {
  return comm.substr(0, 15);
}

const std::vector<TraceDatEventFormat>& trace_dat_event_formats() {
  static const std::vector<TraceDatEventFormat> formats = {
      {"ftrace", "print",
       format_file("print", kPrintId,
                   {{"unsigned long ip", 8, 8, false}, {"char buf[]", 16, 0, false}},
                   R"("%ps: %s", (void *)REC->ip, REC->buf)")},
      {"sched", "sched_switch",
       // prev_state: the task state bits (TASK_REPORT, 0xff) as letters, and "+" for
       // TASK_REPORT_MAX (0x100), a preempted task (kernel/sched/core.c, 4.14+)
       format_file("sched_switch", kSwitchId,
                   {{"char prev_comm[16]", 8, 16, false},
                    {"pid_t prev_pid", 24, 4, true},
                    {"int prev_prio", 28, 4, true},
                    {"long prev_state", 32, 8, true},
                    {"char next_comm[16]", 40, 16, false},
                    {"pid_t next_pid", 56, 4, true},
                    {"int next_prio", 60, 4, true}},
                   R"("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s )"
                   R"(next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, )"
                   R"((REC->prev_state & 0xff) ? __print_flags(REC->prev_state & 0xff, "|", )"
                   R"({ 0x01, "S" }, { 0x02, "D" }, { 0x04, "T" }, { 0x08, "t" }, { 0x10, "X" }, )"
                   R"({ 0x20, "Z" }, { 0x40, "P" }, { 0x80, "I" }) : "R", REC->prev_state & 0x100 )"
                   R"(? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio)")},
      {"sched", "sched_wakeup_new", wakeup_format("sched_wakeup_new", kWakeupNewId)},
      {"sched", "sched_wakeup", wakeup_format("sched_wakeup", kWakeupId)},
      {"sched", "sched_waking", wakeup_format("sched_waking", kWakingId)},
      {"sched", "sched_migrate_task",
       format_file("sched_migrate_task", kMigrateId,
                   {{"__data_loc char[] comm", 8, 4, false},
                    {"pid_t pid", 12, 4, true},
                    {"int prio", 16, 4, true},
                    {"int orig_cpu", 20, 4, true},
                    {"int dest_cpu", 24, 4, true}},
                   R"("comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", __get_str(comm), )"
                   R"(REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu)")},
      {"sched", "sched_process_fork",
       format_file("sched_process_fork", kForkId,
                   {{"__data_loc char[] parent_comm", 8, 4, false},
                    {"pid_t parent_pid", 12, 4, true},
                    {"__data_loc char[] child_comm", 16, 4, false},
                    {"pid_t child_pid", 20, 4, true}},
                   R"("comm=%s pid=%d child_comm=%s child_pid=%d", __get_str(parent_comm), )"
                   R"(REC->parent_pid, __get_str(child_comm), REC->child_pid)")},
      {"sched", "sched_process_exit",
       format_file("sched_process_exit", kExitId,
                   {{"char comm[16]", 8, 16, false},
                    {"pid_t pid", 24, 4, true},
                    {"int prio", 28, 4, true},
                    {"bool group_dead", 32, 1, false}},
                   R"("comm=%s pid=%d prio=%d group_dead=%s", REC->comm, REC->pid, )"
                   R"(REC->prio, REC->group_dead ? "true" : "false")")},
  };
  return formats;
}

std::string trace_dat_record(const KernelRecord& r) {
  Bytes b(fixed_size(r.event));
  b.u16(0, id_of(r.event));
  b.u8(2, (r.irqs_off ? kFlagIrqsOff : 0) | (r.hardirq ? kFlagHardirq : 0));
  b.u8(3, r.preempt_count);
  b.i32(4, r.running ? r.running->pid : 0);
  const auto task16 = [&b](size_t at, const KernelTask& t) {  // comm[16], pid, prio
    b.comm16(at, kernel_comm(t.comm));
    b.i32(at + 16, t.pid);
    b.i32(at + 20, t.prio);
  };
  switch (r.event) {
    case KernelEvent::kSwitch:
      task16(8, r.a);
      b.i64(32, r.prev_state);
      task16(40, r.b);
      break;
    case KernelEvent::kWaking:
    case KernelEvent::kWakeup:
    case KernelEvent::kWakeupNew:
      task16(8, r.a);
      b.i32(32, r.target_cpu);
      break;
    case KernelEvent::kMigrate:
      b.data_loc(8, kernel_comm(r.a.comm));
      b.i32(12, r.a.pid);
      b.i32(16, r.a.prio);
      b.i32(20, r.orig_cpu);
      b.i32(24, r.target_cpu);
      break;
    case KernelEvent::kFork:
      b.data_loc(8, kernel_comm(r.a.comm));
      b.i32(12, r.a.pid);
      b.data_loc(16, kernel_comm(r.b.comm));
      b.i32(20, r.b.pid);
      break;
    case KernelEvent::kExit:
      task16(8, r.a);
      b.u8(32, r.group_dead ? 1 : 0);
      break;
    case KernelEvent::kMark:
      b.u64(8, kTracingMarkWriteAddress);
      b.append_string(r.text);
      break;
  }
  return b.done();
}

}  // namespace schedlab
