// `run --ftrace` text as Perfetto's ftrace text importer reads it. Perfetto's trace
// processor is not packaged (Debian, npm), so no test opens the file in Perfetto; this one
// holds every line of every shipped scenario's text to the rules that importer applies,
// as its source states them (google/perfetto, src/trace_processor/importers/systrace/:
// systrace_trace_parser.cc, systrace_line_tokenizer.cc, systrace_line_parser.cc, and
// types/task_state.cc), rules written here anew from that reading:
// - a line starting with '#' or empty is skipped; every other line must match the line
//   pattern "-PID [(TGID)] [CPU] FLAGS SECS.FRAC: EVENT:" (TGID digits or dashes, at most
//   four flag characters), whose first match gives pid, CPU and event, and whose text
//   before it is the task's name; a line that does not match is counted as a failure;
// - the time is SECS.FRAC read as a double and multiplied by 1e9, cut to an integer;
// - the fields are split at single blanks, each at '=' (the last part is the value);
// - sched_switch needs prev_pid, next_pid (unsigned) and prev_prio, next_prio (signed),
//   and prev_state is valid only as "R", "R+", or letters of "SDTtXZPxKWNI" and '|';
// - sched_waking needs an unsigned pid (the woken task) and its comm;
// - tracing_mark_write is atrace's "B|pid|name", "E|pid", "C|pid|name|value".
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "report/ftrace_writer.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "trace_harness.h"

namespace schedlab {
namespace {

bool is_unsigned(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

bool is_signed(const std::string& s) {
  return is_unsigned(s[0] == '-' ? s.substr(1) : s);
}

// Perfetto's reading of a textual prev_state (task_state.cc's string constructor).
bool valid_prev_state(const std::string& s) {
  if (s.empty()) return false;
  if (s[0] == 'R') return s == "R" || s == "R+";
  return s.find_first_not_of("SDTtXZPxKWNI|") == std::string::npos;
}

// key=value fields split at blanks, then at '=' keeping the last part; a token without
// '=' is the "name" (systrace_line_parser.cc).
std::map<std::string, std::string> fields_of(const std::string& args) {
  std::map<std::string, std::string> out;
  std::istringstream in(args);
  std::string token;
  while (std::getline(in, token, ' ')) {
    if (token.empty()) continue;
    const size_t eq = token.find('=');
    if (eq == std::string::npos) {
      out["name"] = token;
      continue;
    }
    const size_t last = token.rfind('=');
    if (eq == 0) continue;  // "==>": no key
    out[token.substr(0, eq)] = token.substr(last + 1);
  }
  return out;
}

std::string ftrace_text_of(const std::filesystem::path& scenario) {
  ScenarioOverrides o;
  o.duration_s = 0.2;
  std::ostringstream text;
  FtraceTextWriter writer(text);
  SinkList sinks;
  sinks.add(&writer);
  simulate(load_scenario(scenario.string(), o), sinks, {});
  return text.str();
}

TEST(PerfettoText, EveryLineMeetsItsImportersRules) {
  const std::regex line_pattern(
      R"(-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*[a-zA-Z0-9.]{0,4}\s+(\d+\.\d+):\s+(\S+):)");
  const std::regex mark_pattern(R"((B\|\d+\|.+|E\|\d+.*|C\|\d+\|\S+\|-?[0-9.]+))");
  std::map<std::string, long> events;
  long worst_ns_error = 0;
  int scenarios = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const std::string what = entry.path().filename().string();
    std::istringstream in(ftrace_text_of(entry.path()));
    std::string line;
    std::map<std::string, long> per_event;
    long lines = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      test::FtraceLine w;  // the exact values the writer put on the line
      test::read_ftrace_line(line, w);
      // std::regex is slow: the first 400 lines of each event in each scenario
      if (++per_event[w.event] > 400) continue;
      std::smatch m;
      ASSERT_TRUE(std::regex_search(line, m, line_pattern)) << what << ": " << line;
      const std::string task = m.prefix().str().substr(m.prefix().str().find_first_not_of(' '));
      EXPECT_EQ(task, w.task) << what << ": " << line;
      EXPECT_EQ(std::stoll(m[1].str()), w.ctx_pid) << what << ": " << line;
      EXPECT_EQ(std::stoll(m[3].str()), w.cpu) << what << ": " << line;
      EXPECT_EQ(m[5].str(), w.event) << what << ": " << line;
      const auto perfetto_ns = static_cast<long long>(std::stod(m[4].str()) * 1e9);
      worst_ns_error = std::max(worst_ns_error, static_cast<long>(std::llabs(perfetto_ns - w.ns)));
      const std::string args = m.suffix().str().substr(1);
      auto f = fields_of(args);
      if (w.event == "sched_switch") {
        EXPECT_TRUE(is_unsigned(f["prev_pid"]) && is_unsigned(f["next_pid"])) << what << line;
        EXPECT_TRUE(is_signed(f["prev_prio"]) && is_signed(f["next_prio"])) << what << line;
        EXPECT_TRUE(valid_prev_state(f["prev_state"])) << what << ": " << line;
        EXPECT_NE(f["next_comm"], "") << what << ": " << line;
      } else if (w.event == "sched_waking") {
        EXPECT_TRUE(is_unsigned(f["pid"])) << what << ": " << line;
        EXPECT_NE(f["comm"], "") << what << ": " << line;
      } else if (w.event == "tracing_mark_write") {
        const std::string mark = args.substr(args.find_first_not_of(' '));
        EXPECT_TRUE(
            std::regex_match(mark, std::regex(R"((B\|\d+\|.+|E\|\d+.*|C\|\d+\|\S+\|-?[0-9.]+))")))
            << what << ": " << line;
      }
      ++events[w.event];
      ++lines;
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GT(lines, 100) << what;  // lines checked
    ++scenarios;
  }
  EXPECT_GE(scenarios, 19);
  // Perfetto reads the nine-digit times through a double: each survives to the nanosecond.
  EXPECT_EQ(worst_ns_error, 0);
  for (const char* e :
       {"sched_switch", "sched_waking", "sched_wakeup", "tracing_mark_write", "sched_wakeup_new",
        "sched_migrate_task", "sched_process_fork", "sched_process_exit"})
    EXPECT_GT(events[e], 100) << e;
}

}  // namespace
}  // namespace schedlab
