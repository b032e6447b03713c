#include "report/trace_dat_writer.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/trace_dat_events.h"
#include "util/error.h"

namespace schedlab {

namespace {

constexpr size_t kPageSize = 4096;
constexpr size_t kPageHeader = 16;  // u64 timestamp, local_t commit (a long: 8 bytes)
constexpr size_t kPageData = kPageSize - kPageHeader;

// The ring buffer's event header (kernel/trace/ring_buffer.c): type_len in the low 5
// bits, the time delta in the high 27; type_len 1..28 is a record of 4 * type_len bytes,
// 0 a longer one whose length (+ 4) is in the next word, 30 a time extend.
constexpr uint32_t kTypeLenTimeExtend = 30;
constexpr uint32_t kMaxTypeLen = 28;
constexpr int kDeltaBits = 27;
constexpr Time kMaxDelta = (Time{1} << kDeltaBits) - 1;

// tracefs events/header_page and events/header_event of a 64-bit kernel.
constexpr const char* kHeaderPage =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
constexpr const char* kHeaderEvent =
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n"
    "\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n";

void put(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s += static_cast<char>(v >> (8 * i));
}
void put32(std::string& s, uint64_t v) {
  put(s, v, 4);
}
void put64(std::string& s, uint64_t v) {
  put(s, v, 8);
}

// A section of text behind its size (4 or 8 bytes, as the format says for each).
void sized(std::string& s, const std::string& text, int size_bytes) {
  put(s, text.size(), size_bytes);
  s += text;
}

std::string event_header(uint32_t type_len, Time delta) {
  std::string h;
  put32(h, type_len | static_cast<uint32_t>(delta) << 5);
  return h;
}

}  // namespace

TraceDatWriter::TraceDatWriter(std::ostream& out)
    : out_(out), recorder_([this](const KernelRecord& r) { add(r); }) {}

void TraceDatWriter::begin(const RunInfo& info) {
  recorder_.begin(info);
  cpus_.assign(static_cast<size_t>(std::max(1, info.cpus)), CpuPages{});
  recorder_.marker(0, 0, "schedlab: start");
}

void TraceDatWriter::add(const KernelRecord& r) {
  append(cpus_[static_cast<size_t>(r.cpu)], r.clock_ns, trace_dat_record(r));
}

void TraceDatWriter::close_page(CpuPages& cpu) {
  if (cpu.page.empty()) return;
  std::string header;
  put64(header, static_cast<uint64_t>(cpu.page_ns));
  put64(header, cpu.page.size());  // commit: the bytes of data in the page
  cpu.pages += header;
  cpu.pages += cpu.page;
  cpu.pages.append(kPageData - cpu.page.size(), '\0');
  cpu.page.clear();
}

void TraceDatWriter::append(CpuPages& cpu, Time clock_ns, const std::string& record) {
  if (clock_ns < cpu.last_ns)
    throw InvariantError(fmt::format("trace.dat: an event at {} ns after one at {} ns on its CPU",
                                     clock_ns, cpu.last_ns));
  const size_t words = record.size() / 4;
  const bool long_record = words > kMaxTypeLen;
  Time delta = clock_ns - cpu.last_ns;
  const size_t size = (delta > kMaxDelta ? 8 : 0) + (long_record ? 8 : 4) + record.size();
  if (size > kPageData)
    throw InvariantError(
        fmt::format("trace.dat: a record of {} bytes is larger than a page", record.size()));
  if (!cpu.page.empty() && cpu.page.size() + size > kPageData) close_page(cpu);
  if (cpu.page.empty()) {  // a page's first event is at the page's time
    cpu.page_ns = clock_ns;
    delta = 0;
  }
  if (delta > kMaxDelta) {
    cpu.page += event_header(kTypeLenTimeExtend, delta & kMaxDelta);
    put32(cpu.page, static_cast<uint64_t>(delta) >> kDeltaBits);
    delta = 0;
  }
  if (long_record) {
    cpu.page += event_header(0, delta);
    put32(cpu.page, record.size() + 4);
  } else {
    cpu.page += event_header(static_cast<uint32_t>(words), delta);
  }
  cpu.page += record;
  cpu.last_ns = clock_ns;
}

std::string TraceDatWriter::header() const {
  std::string h("\x17\x08\x44tracing6", 11);
  h += '\0';
  h += '\0';                  // little endian
  h += static_cast<char>(8);  // bytes in a long
  put32(h, kPageSize);
  h += std::string("header_page", 12);
  sized(h, kHeaderPage, 8);
  h += std::string("header_event", 13);
  sized(h, kHeaderEvent, 8);
  const auto& formats = trace_dat_event_formats();
  const auto in = [&formats](const std::string& system) {
    std::vector<const TraceDatEventFormat*> out;
    for (const TraceDatEventFormat& f : formats)
      if (f.system == system) out.push_back(&f);
    return out;
  };
  const auto ftrace = in("ftrace"), sched = in("sched");
  put32(h, ftrace.size());
  for (const TraceDatEventFormat* f : ftrace) sized(h, f->format, 8);
  put32(h, 1);  // event systems besides ftrace
  h += std::string("sched", 6);
  put32(h, sched.size());
  for (const TraceDatEventFormat* f : sched) sized(h, f->format, 8);
  sized(h, fmt::format("{:016x} T tracing_mark_write\n", kTracingMarkWriteAddress), 4);
  put32(h, 0);  // trace_printk formats
  std::string cmdlines;
  for (const KernelTask& t : recorder_.tasks())
    if (t.pid > 0) cmdlines += fmt::format("{} {}\n", t.pid, kernel_comm(t.comm));
  sized(h, cmdlines, 8);
  put32(h, cpus_.size());
  h += std::string("flyrecord", 10);
  return h;
}

void TraceDatWriter::end(Time t) {
  recorder_.end(t);
  recorder_.marker(0, t, "schedlab: end");
  for (CpuPages& cpu : cpus_) close_page(cpu);
  std::string h = header();
  // the CPU data starts on a page boundary, after the table of (offset, size) per CPU
  uint64_t offset = (h.size() + 16 * cpus_.size() + kPageSize - 1) / kPageSize * kPageSize;
  for (const CpuPages& cpu : cpus_) {
    put64(h, offset);
    put64(h, cpu.pages.size());
    offset += cpu.pages.size();
  }
  h.resize((h.size() + kPageSize - 1) / kPageSize * kPageSize, '\0');
  out_.write(h.data(), static_cast<std::streamsize>(h.size()));
  for (const CpuPages& cpu : cpus_)
    out_.write(cpu.pages.data(), static_cast<std::streamsize>(cpu.pages.size()));
  out_.flush();
}

}  // namespace schedlab
