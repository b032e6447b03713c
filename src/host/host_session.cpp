#include "host/host_session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "host/ftrace_parser.h"
#include "host/host_machine.h"
#include "host/host_runner.h"
#include "host/tracefs.h"

namespace schedlab {

HostSessionResult run_recorded(const Scenario& scenario, const HostSessionOptions& o,
                               EventSink& sink) {
  HostRunOptions ho;
  ho.recalibrate = o.recalibrate;
  ho.duration_ns = scenario.duration_ns.value_or(10 * kNsPerSec);
  const std::string trace_path =
      !o.keep_trace.empty()
          ? o.keep_trace
          : (std::filesystem::temp_directory_path() / fmt::format("schedlab-host-{}.txt", getpid()))
                .string();
  HostSessionResult out;
  HostRunResult run;
  {
    TraceSession session(o.tracefs_dir, o.buffer_kb, trace_path);
    run = run_on_host(scenario, ho);
    session.stop();
    if (session.overruns())
      out.notes.push_back(fmt::format("the trace buffer dropped {} events (raise --buffer-kb)",
                                      session.overruns()));
  }
  out.notes.push_back(run.calibration_note);
  if (run.interrupted) out.notes.push_back("interrupted; the metrics cover the run so far");
  out.interrupted = run.interrupted;
  run.record.policy = fmt::format("host {}", host_kernel_release());
  run.record.generator = scenario.generator;
  {
    std::ifstream in(trace_path);
    const FtraceStats stats = parse_ftrace(in, trace_path, sink, run.record);
    for (const std::string& n : stats.notes) out.notes.push_back(n);
  }
  if (o.keep_trace.empty()) std::filesystem::remove(trace_path);
  return out;
}

}  // namespace schedlab
