// trace.dat out (`--trace-dat`): every shipped scenario's run written both as ftrace text
// and as trace.dat holds the same records, read back through libtracecmd; Debian's
// `trace-cmd report` opens the file and prints as many sched_switch lines as the text
// has; `analyze` of the trace.dat gives the text's metrics; and hand-made streams for the
// ring buffer's corners (a time extend, a record longer than 112 bytes, page after page);
// and KernelShark's library loads every record, with its scheduling plugin's task lanes.
#include "host/trace_dat.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyzer.h"
#include "cli_harness.h"
#include "host/ftrace_parser.h"
#include "kernelshark/kshark_reader.h"
#include "report/ftrace_writer.h"
#include "report/trace_dat_writer.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "temp_dir.h"
#include "trace_harness.h"
#include "util/output_file.h"
#include "util/subprocess.h"

namespace schedlab {
namespace {

using test::analyze_file;
using test::analyze_text;
using test::expect_same_by_pid;
using test::Names;
using test::TempDir;

// One line of ftrace text as the fields a record holds: the running task's pid, the CPU,
// the timestamp, the event and its fields (comms cut to the kernel's 15 characters).
using Line = test::FtraceLine;

std::string cut_comms(const std::string& fields) {
  std::istringstream words(fields);
  std::string word, out;
  while (words >> word) {
    const size_t eq = word.find("comm=");
    if (eq != std::string::npos && word.size() > eq + 5 + 15) word.resize(eq + 5 + 15);
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

// The text writer's line or the trace.dat reader's (no TGID column); false for a comment.
bool parse_line(const std::string& text, Line& l) {
  if (!test::read_ftrace_line(text, l)) return false;
  l.fields = cut_comms(l.fields);
  if (l.event == "print") {  // ftrace's print event is trace_marker's tracing_mark_write
    const size_t mark = l.fields.find(": ");
    l.event = l.fields.substr(0, mark);
    l.fields = l.fields.substr(mark + 2);
  }
  if (l.event == "sched_process_exit")  // the text writer leaves group_dead out
    l.fields = l.fields.substr(0, l.fields.find(" group_dead="));
  return true;
}

// Each CPU's lines in order: what a per-CPU ring buffer keeps.
std::map<int, std::vector<Line>> per_cpu(const std::string& text) {
  std::map<int, std::vector<Line>> cpus;
  std::istringstream in(text);
  std::string s;
  Line l;
  while (std::getline(in, s))
    if (parse_line(s, l)) cpus[l.cpu].push_back(l);
  return cpus;
}

struct Written {
  std::string text, dat_path;
  Metrics direct;
};

Written write_both(const Scenario& s, const TempDir& dir, const std::string& name) {
  Written w;
  w.dat_path = dir.file(name + ".dat");
  std::ostringstream text;
  OutputFile dat(w.dat_path);
  FtraceTextWriter text_writer(text);
  TraceDatWriter dat_writer(dat.stream());
  Analyzer direct;
  SinkList sinks;
  sinks.add(&direct);
  sinks.add(&text_writer);
  sinks.add(&dat_writer);
  simulate(s, sinks, {});
  dat.close();
  w.text = text.str();
  w.direct = direct.metrics();
  return w;
}

std::vector<std::filesystem::path> shipped_scenarios() {
  std::vector<std::filesystem::path> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios"))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

Scenario short_run(const std::filesystem::path& p) {
  ScenarioOverrides o;
  o.duration_s = 0.2;
  return load_scenario(p.string(), o);
}

// Every shipped scenario's 0.2 s run in both formats, made once for the tests below.
const std::vector<std::pair<std::string, Written>>& shipped_runs() {
  static const TempDir dir;
  static const std::vector<std::pair<std::string, Written>> runs = [] {
    std::vector<std::pair<std::string, Written>> out;
    for (const auto& path : shipped_scenarios())
      out.emplace_back(path.filename().string(),
                       write_both(short_run(path), dir, path.stem().string()));
    return out;
  }();
  return runs;
}

// (a) Every record of the ftrace text, CPU by CPU in order, is in the trace.dat with the
// same running task, irq flags (a timer's wake-up in hard-interrupt context), nanosecond,
// event and fields (pid, prio, prev_state, target CPU...).
TEST(TraceDat, HoldsTheFtraceTextsRecordsCpuByCpu) {
  int scenarios = 0;
  for (const auto& [what, w] : shipped_runs()) {
    const auto text = per_cpu(w.text);
    const auto dat = per_cpu(trace_dat_text(w.dat_path));
    ASSERT_EQ(text.size(), dat.size()) << what;
    size_t lines = 0;
    for (const auto& [cpu, lines_text] : text) {
      ASSERT_TRUE(dat.count(cpu)) << what << " cpu " << cpu;
      const std::vector<Line>& lines_dat = dat.at(cpu);
      // the trace.dat's extra records: the run's span on CPU 0, as two markers
      ASSERT_EQ(lines_text.size(), lines_dat.size()) << what << " cpu " << cpu;
      for (size_t i = 0; i < lines_text.size(); ++i) {
        const Line &x = lines_text[i], &y = lines_dat[i];
        EXPECT_EQ(x.ctx_pid, y.ctx_pid) << what << " cpu " << cpu << " #" << i;
        EXPECT_EQ(x.time, y.time) << what << " cpu " << cpu << " #" << i;
        EXPECT_EQ(x.flags, y.flags) << what << " cpu " << cpu << " #" << i;
        EXPECT_EQ(x.event, y.event) << what << " cpu " << cpu << " #" << i;
        EXPECT_EQ(x.fields, y.fields) << what << " cpu " << cpu << " #" << i;
        if (::testing::Test::HasFailure()) return;
      }
      lines += lines_text.size();
    }
    EXPECT_GT(lines, 100u) << what;
    ++scenarios;
  }
  EXPECT_GE(scenarios, 19);
}

// (c) analyze of the trace.dat gives the ftrace text's figures, and the simulation's own.
TEST(TraceDat, AnalyzeReadsBackTheTextsMetrics) {
  for (const auto& [what, w] : shipped_runs()) {
    FtraceStats stats;
    const Metrics dat = analyze_file(w.dat_path, &stats);
    EXPECT_EQ(stats.format, "trace.dat");
    expect_same_by_pid(analyze_text(w.text), dat, what, Names::kFirst15, true);
    EXPECT_EQ(w.direct.context_switches, dat.context_switches) << what;
    EXPECT_EQ(w.direct.duration_ns, dat.duration_ns) << what;
  }
}

// (b) Debian's trace-cmd opens the file: report exits 0, with nothing on stderr, and
// prints one sched_switch line per switch of the text; so does -R (the raw fields).
TEST(TraceDat, TraceCmdReportOpensIt) {
  if (!std::filesystem::exists("/usr/bin/trace-cmd"))
    GTEST_SKIP() << "trace-cmd is not installed (Debian package trace-cmd)";
  int reports = 0;
  for (const auto& [name, w] : shipped_runs()) {
    if (name != "demo.json" && name != "e4-tbench.json" && name != "kbuild.json") continue;
    const auto count = [](const std::string& text, const std::string& what) {
      size_t n = 0;
      for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
      return n;
    };
    for (const char* flag : {"", "-R"}) {
      std::vector<std::string> argv = {"trace-cmd", "report"};
      if (*flag) argv.push_back(flag);
      argv.push_back(w.dat_path);
      const ProgramResult r = run_program(argv, "");
      ASSERT_TRUE(r.started) << r.error;
      EXPECT_EQ(r.exit_status, 0) << name << " " << flag << r.err;
      EXPECT_EQ(r.err, "") << name << " " << flag;
      EXPECT_EQ(count(r.out, " sched_switch: "), count(w.text, " sched_switch: "))
          << name << " " << flag;
      EXPECT_EQ(count(r.out, " sched_wakeup: "), count(w.text, " sched_wakeup: "))
          << name << " " << flag;
      EXPECT_EQ(r.out.rfind("cpus=" + std::to_string(w.direct.per_cpu.size()) + "\n", 0), 0u)
          << r.out.substr(0, 200);
      ++reports;
    }
  }
  EXPECT_EQ(reports, 6);
}

// (d) KernelShark's data library (libkshark) opens the file and loads, CPU by CPU, every
// record of the text at its nanosecond, with its event and task; with KernelShark's
// sched_events plugin (the one that draws task slices), each sched_switch belongs to the
// task switched in, as the text's next_pid says. The GUI itself is not run here.
TEST(TraceDat, KernelSharkLoadsEveryRecordWithItsTaskLanes) {
#ifndef SCHEDLAB_HAVE_KSHARK
  GTEST_SKIP() << "built without libkshark (Debian packages libkshark-dev, libjson-c-dev)";
#else
  const auto next_pid = [](const std::string& fields) {
    const size_t at = fields.find("next_pid=");
    return std::stoi(fields.substr(at + 9));
  };
  int scenarios = 0, switches = 0;
  bool plugin = false;
  for (const auto& [what, w] : shipped_runs()) {
    const test::KsharkLoad ks = test::kshark_load(w.dat_path, true);
    ASSERT_EQ(ks.error, "") << what;
    plugin = ks.sched_plugin;
    std::map<int, std::vector<test::KsharkEntry>> ks_cpus;
    for (const test::KsharkEntry& e : ks.entries)  // the run's span: comments in the text
      if (e.info.rfind("tracing_mark_write: schedlab: ", 0) != 0) ks_cpus[e.cpu].push_back(e);
    const auto text = per_cpu(w.text);
    ASSERT_EQ(text.size(), ks_cpus.size()) << what;
    for (const auto& [cpu, lines] : text) {
      const std::vector<test::KsharkEntry>& entries = ks_cpus[cpu];
      ASSERT_EQ(lines.size(), entries.size()) << what << " cpu " << cpu;
      for (size_t i = 0; i < lines.size(); ++i) {
        const Line& x = lines[i];
        const test::KsharkEntry& e = entries[i];
        const std::string event = e.event.substr(e.event.find('/') + 1);
        const bool is_switch = x.event == "sched_switch";
        EXPECT_EQ(e.ts_ns, x.ns) << what << " cpu " << cpu << " #" << i;
        // a marker's text is what the parser names it; KernelShark names ftrace's event
        if (x.event.rfind("sched_", 0) == 0)
          EXPECT_EQ(event, x.event) << what << " cpu " << cpu << " #" << i;
        else
          EXPECT_EQ(e.event, "ftrace/print") << what << " cpu " << cpu << " #" << i;
        EXPECT_EQ(e.pid, is_switch && ks.sched_plugin ? next_pid(x.fields) : x.ctx_pid)
            << what << " cpu " << cpu << " #" << i << " " << x.event;
        switches += is_switch;
        if (::testing::Test::HasFailure()) return;
      }
    }
    ++scenarios;
  }
  EXPECT_GE(scenarios, 19);
  EXPECT_GT(switches, 1000);
  if (!plugin)
    GTEST_SKIP() << "records checked; KernelShark's sched_events plugin is not installed "
                    "(Debian package kernelshark), so its task lanes were not";
#endif
}

// The ring buffer's corners by hand, on one CPU: a 600 ms sleep (a delta over 2^27 ns
// needs a time-extend event), a mark whose marker text is longer than 112 bytes (a record
// with its length in the next word), and 200 switches (more than a 4096-byte page).
TEST(TraceDat, TimeExtendsLongRecordsAndPages) {
  TempDir dir;
  const std::string path = dir.file("hand.dat");
  {
    OutputFile file(path);
    TraceDatWriter w(file.stream());
    RunInfo info;
    info.cpus = 1;
    info.mark_names = {std::string(120, 'm')};
    w.begin(info);
    TaskInfo t;
    t.id = 0;
    t.name = "a_task_with_a_long_name";
    w.task_created(t);
    SchedEvent e;
    e.cpu = 0;
    for (int i = 0; i < 200; ++i) {
      e.time = i < 100 ? i * 1000 : 600'000'000 + i * 1000;
      e.type = EventType::kSwitch;
      e.detail = static_cast<uint8_t>(PrevState::kBlocked);
      e.task = i % 2 ? 0 : kNoTask;
      e.other = i % 2 ? kNoTask : 0;
      w.event(e);
    }
    e.type = EventType::kMark;
    e.task = 0;
    e.arg = 0;
    e.value = 1;
    w.event(e);
    w.end(700'000'000);
    file.close();
  }
  EXPECT_EQ(std::filesystem::file_size(path) % 4096, 0u);
  const std::string text = trace_dat_text(path);
  EXPECT_NE(text.find("#P:1\n"), std::string::npos);
  EXPECT_NE(text.find("# schedlab: start 100.000000000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# schedlab: end 100.700000000\n"), std::string::npos);
  // the switch before the sleep and the one after it
  EXPECT_NE(text.find("[000] d..2. 100.000099000: sched_switch: prev_comm=a_task_with_a_l "
                      "prev_pid=1000 prev_prio=120 prev_state=S ==> next_comm=swapper/0"),
            std::string::npos)
      << text.substr(0, 600);
  EXPECT_NE(text.find("[000] d..2. 100.600100000: sched_switch: prev_comm=swapper/0 prev_pid=0 "
                      "prev_prio=120 prev_state=R ==> next_comm=a_task_with_a_l next_pid=1000"),
            std::string::npos);
  EXPECT_NE(text.find("[000] ..... 100.600199000: print: tracing_mark_write: C|1000|" +
                      std::string(120, 'm') + "|1\n"),
            std::string::npos);
  size_t switches = 0;
  for (size_t at = text.find("sched_switch:"); at != std::string::npos;
       at = text.find("sched_switch:", at + 1))
    ++switches;
  EXPECT_EQ(switches, 200u);
}

// `run --trace-dat` and `analyze FILE.dat` on the command line: analyze's JSON of the
// trace.dat is that of the ftrace text, task by task.
TEST(TraceDat, RunWritesItAndAnalyzeReadsIt) {
  TempDir dir;
  const std::string scenario = std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/demo.json";
  const auto run = test::cli({"run", scenario, "--duration", "0.3", "--ftrace", dir.file("r.txt"),
                              "--trace-dat", dir.file("r.dat")});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(is_trace_dat(dir.file("r.dat")));
  const auto text = test::cli({"analyze", dir.file("r.txt"), "--json"});
  const auto dat = test::cli({"analyze", dir.file("r.dat"), "--json"});
  ASSERT_EQ(text.code, 0) << text.err;
  ASSERT_EQ(dat.code, 0) << dat.err;
  auto a = nlohmann::json::parse(text.out), b = nlohmann::json::parse(dat.out);
  std::map<int64_t, nlohmann::json> ta, tb;
  for (auto& t : a["tasks"]) {
    t.erase("tid");
    ta[t["pid"].get<int64_t>()] = t;
  }
  for (auto& t : b["tasks"]) {
    t.erase("tid");
    tb[t["pid"].get<int64_t>()] = t;
  }
  EXPECT_EQ(ta, tb);
  a.erase("tasks");
  b.erase("tasks");
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace schedlab
