// A trace file read straight into the extractor.
#include "extract/extract.h"
#include "host/ftrace_parser.h"

namespace schedlab {

ExtractedWorkload extract_trace_file(const std::string& path, const ExtractOptions& options,
                                     FtraceStats* stats) {
  WorkloadExtractor extractor(options);
  FtraceOptions read;
  read.wakers = true;
  read.softirq_wakers = options.softirq_wakers;
  const FtraceStats s = parse_trace_file(path, extractor, {}, read);
  if (stats) *stats = s;
  return extractor.result(path);
}

}  // namespace schedlab
