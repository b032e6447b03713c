#include "host/host_session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <memory>

#include "host/ftrace_parser.h"
#include "host/host_machine.h"
#include "host/host_runner.h"
#include "host/tracefs.h"
#include "host/user_dirs.h"
#include "util/error.h"

namespace schedlab {

HostSessionResult run_recorded(const Scenario& scenario, const HostSessionOptions& o,
                               EventSink& sink) {
  HostRunOptions ho;
  ho.recalibrate = o.recalibrate;
  ho.duration_ns = scenario.duration_ns.value_or(10 * kNsPerSec);
  ho.max_threads = o.max_threads;
  ho.cache_dir = o.cache_dir;
  // The trace is private: a file of our own in a folder of our own, unless the user
  // named one to keep.
  std::unique_ptr<PrivateDir> temp;
  std::string trace_path = o.keep_trace;
  if (trace_path.empty()) {
    temp = std::make_unique<PrivateDir>();
    trace_path = temp->new_file("trace.txt");
  }
  OutputOptions out;
  out.follow_symlink = !o.keep_trace.empty();
  out.mode = 0600;
  out.force_mode = true;
  HostSessionResult result;
  HostRunResult run;
  {
    TraceSession session(o.trace, trace_path, out);
    result.notes = session.notes();
    run = run_on_host(scenario, ho);
    session.stop();
    if (session.overruns())
      result.notes.push_back(fmt::format("the trace buffer dropped {} events (raise --buffer-kb)",
                                         session.overruns()));
  }
  result.notes.push_back(run.calibration_note);
  if (run.interrupted) result.notes.push_back("interrupted; the metrics cover the run so far");
  result.interrupted = run.interrupted;
  result.loops_per_us = run.loops_per_us;
  run.record.policy = fmt::format("host {}", host_kernel_release());
  run.record.generator = scenario.generator;
  // Our own recording, read as it is (--max-input guards what a user hands in).
  std::ifstream in(trace_path, std::ios::binary);
  if (!in) throw InputError(trace_path, "", "cannot read the recording back");
  const FtraceStats stats = parse_ftrace(in, trace_path, sink, run.record);
  for (const std::string& n : stats.notes) result.notes.push_back(n);
  return result;
}

}  // namespace schedlab
