// Extracts a workload from ftrace text given in a test, with the wakers read as extract
// reads them.
#pragma once

#include <sstream>
#include <string>

#include "extract/extract.h"
#include "host/ftrace_parser.h"

namespace schedlab::test {

inline ExtractedWorkload extract_text(const std::string& text, const ExtractOptions& o = {}) {
  std::istringstream in(text);
  WorkloadExtractor x(o);
  FtraceOptions read;
  read.wakers = true;
  parse_ftrace(in, "trace.txt", x, {}, read);
  return x.result("trace.txt");
}

}  // namespace schedlab::test
