#include "experiment/metric_labels.h"

#include <cctype>

namespace schedlab {

namespace {

// The columns every sweep has (sweep.cpp metric_columns, run_one).
struct ColumnLabel {
  const char* column;
  Label label;
};
const ColumnLabel kColumns[] = {
    {"duration_s", {"Simulated duration", "s"}},
    {"context_switches", {"Context switches", ""}},
    {"migrations", {"Migrations", ""}},
    {"jain_fairness", {"Jain's fairness index of CPU time", ""}},
    {"lock_holder_preemptions", {"Lock-holder preemptions", ""}},
    {"wall_seconds", {"Wall-clock time of a run", "s"}},
};

// The marks the generators and shipped scenarios count, by name: what one is, and the
// unit its rate is quoted in where the seed posts had one.
struct MarkLabel {
  const char* mark;
  const char* noun;  // plural, capitalised
  const char* rate_unit;
};
const MarkLabel kMarks[] = {
    {"frames", "Frames", "fps"},                            // x264, mplayer
    {"gears_frames", "glxgears frames", "fps"},             // glitch1 (E5)
    {"transactions", "Transactions", "tps"},                // OLTP (sysbench)
    {"queries", "Queries", "1/s"},                          // OLTP
    {"read_write_requests", "Read/write requests", "1/s"},  // sysbench's request rate
    {"tbench_bytes", "Bytes", "B/s"},                       // tbench
    {"tbench_ops", "tbench operations", "1/s"},             // tbench
    {"messages", "Messages", "1/s"},                        // hackbench, messaging (vmark)
    {"requests", "Requests", "1/s"},                        // schbench
    {"objects", "Objects compiled", "1/s"},                 // kbuild
    {"konsole_ready", "konsole ready", "1/s"},              // konsole
    {"movie_done", "Movie finished", "1/s"},                // mplayer
    {"songs", "Songs loaded", "1/s"},                       // amarok
    {"collection_loaded", "Collection loaded", "1/s"},      // amarok
    {"lines", "Lines scrolled", "1/s"},                     // glitch1
    {"redraws", "Redraws", "1/s"},                          // glitch1
    {"periods", "Periods", "1/s"},                          // demo.json
    {"round_trips", "Round trips", "1/s"},                  // demo.json
};

// The families of per-mark columns: marks.<mark>.<what>.
struct MarkColumn {
  const char* suffix;
  const char* text;         // {} is the mark's noun
  const char* unit;         // "" takes the mark's rate unit
  bool bytes_only = false;  // only for a mark that counts bytes
};
const MarkColumn kMarkColumns[] = {
    {"count", "{}", ""},  // a count: no unit
    {"per_second", "{} per second", "rate"},
    // a mark of bytes in the MB/s dbench and tbench print (10^6 bytes: dbench's MB)
    {"mb_per_second", "Megabytes per second", "MB/s", true},
    {"first_ms", "Time of the first of the {}", "ms"},
    {"interval_p95_ms", "95th percentile of the time between {}", "ms"},
};

std::string humane(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (c == '_') c = ' ';
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

const MarkLabel* mark_of(const std::string& name) {
  for (const MarkLabel& m : kMarks)
    if (name == m.mark) return &m;
  return nullptr;
}

}  // namespace

bool counts_bytes(const std::string& mark) {
  const MarkLabel* m = mark_of(mark);
  return m && std::string(m->rate_unit) == "B/s";
}

std::optional<Label> declared_metric_label(const std::string& column) {
  for (const ColumnLabel& c : kColumns)
    if (column == c.column) return c.label;
  if (column.rfind("marks.", 0) != 0) return std::nullopt;
  const auto dot = column.rfind('.');
  if (dot <= 6) return std::nullopt;
  const std::string mark = column.substr(6, dot - 6), what = column.substr(dot + 1);
  const MarkLabel* m = mark_of(mark);
  if (!m) return std::nullopt;
  for (const MarkColumn& f : kMarkColumns) {
    if (what != f.suffix) continue;
    if (f.bytes_only && !counts_bytes(mark)) return std::nullopt;
    std::string text = f.text;
    if (const auto at = text.find("{}"); at != std::string::npos) {
      text.replace(at, 2, m->noun);
      // Not first: "Time of the first of the frames".
      if (at > 0) text[at] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[at])));
    }
    const std::string unit = std::string(f.unit) == "rate" ? m->rate_unit : f.unit;
    return Label{text, unit};
  }
  return std::nullopt;
}

Label metric_label(const std::string& column) {
  if (auto l = declared_metric_label(column)) return *l;
  return Label{column, ""};
}

std::string axis_label(const std::string& axis_name) {
  struct AxisLabel {
    const char* name;
    const char* text;
  };
  static const AxisLabel kAxes[] = {
      {"threads", "Threads"}, {"clients", "Clients"},   {"x_nice", "Nice level of the X server"},
      {"groups", "Groups"},   {"jobs", "make -j jobs"},
  };
  for (const AxisLabel& a : kAxes)
    if (axis_name == a.name) return a.text;
  return humane(axis_name);
}

}  // namespace schedlab
