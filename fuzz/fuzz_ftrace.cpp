// The ftrace text parser on any text, with what `analyze` feeds from it: the analyzer,
// the Perfetto trace and events CSV writers, and the JSON and table reports.
#include <sstream>

#include "analysis/analyzer.h"
#include "fuzz_common.h"
#include "host/ftrace_parser.h"
#include "report/events_csv.h"
#include "report/json_report.h"
#include "report/perfetto_trace.h"
#include "report/table_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schedlab::fuzz::expecting_input_errors([&] {
    std::istringstream in(schedlab::fuzz::text_of(data, size));
    schedlab::Analyzer analyzer;
    std::ostringstream trace, events;
    schedlab::PerfettoTraceWriter perfetto(trace);
    schedlab::EventsCsvWriter csv(events);
    schedlab::SinkList sinks;
    sinks.add(&analyzer);
    sinks.add(&perfetto);
    sinks.add(&csv);
    schedlab::parse_ftrace(in, "fuzz.txt", sinks);
    schedlab::metrics_json(analyzer.metrics());
    schedlab::metrics_table(analyzer.metrics());
  });
  return 0;
}
