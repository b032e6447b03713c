#include "report/program_units.h"

#include <fmt/format.h>

namespace schedlab {

ProgramFigure program_figure(const Metrics& m) {
  ProgramFigure f;
  const double seconds = static_cast<double>(m.duration_ns) / 1e9;
  if (m.generator == "tbench") {
    const auto bytes = m.marks.find("tbench_bytes");
    if (bytes == m.marks.end() || seconds <= 0) return f;
    f = {"tbench", "throughput_mb_per_s", static_cast<double>(bytes->second.count) / 1e6 / seconds,
         ""};
    f.line = fmt::format("Throughput {:.3f} MB/sec", f.value);
  } else if (m.generator == "hackbench") {
    const auto messages = m.marks.find("messages");
    if (messages == m.marks.end() || messages->second.last_ns < 0) return f;
    f = {"hackbench", "time_s", static_cast<double>(messages->second.last_ns) / 1e9, ""};
    f.line = fmt::format("Time: {:.3f}", f.value);
  }
  return f;
}

}  // namespace schedlab
