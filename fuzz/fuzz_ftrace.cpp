// The trace text parser on any text (ftrace, trace-cmd report, systrace HTML), with what
// `analyze` feeds from it: the analyzer, the Perfetto trace, events CSV, ftrace text and
// timehist writers, and the JSON, table, latency and rt-app log reports.
#include <sstream>

#include "analysis/analyzer.h"
#include "fuzz_common.h"
#include "host/ftrace_parser.h"
#include "report/events_csv.h"
#include "report/ftrace_writer.h"
#include "report/json_report.h"
#include "report/perfetto_trace.h"
#include "report/rtapp_log.h"
#include "report/sched_latency.h"
#include "report/table_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schedlab::fuzz::expecting_input_errors([&] {
    std::istringstream in(schedlab::fuzz::text_of(data, size));
    schedlab::Analyzer analyzer;
    std::ostringstream trace, events, ftrace, timehist;
    schedlab::PerfettoTraceWriter perfetto(trace);
    schedlab::EventsCsvWriter csv(events);
    schedlab::FtraceTextWriter text(ftrace);
    schedlab::TimehistWriter hist(timehist);
    schedlab::SinkList sinks;
    sinks.add(&analyzer);
    sinks.add(&perfetto);
    sinks.add(&csv);
    sinks.add(&text);
    sinks.add(&hist);
    schedlab::parse_ftrace(in, "fuzz.txt", sinks);
    const schedlab::Metrics& m = analyzer.metrics();
    schedlab::metrics_json(m);
    schedlab::metrics_table(m);
    schedlab::sched_latency_table(m);
    for (size_t i = 0; i < m.tasks.size(); ++i)
      schedlab::rtapp_log_text(m, m.tasks[i], static_cast<int>(i));
  });
  return 0;
}
