// Reads ftrace text given in a test through the parser into the analyzer, and finds a
// task's figures by name.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "analysis/analyzer.h"
#include "host/ftrace_parser.h"

namespace schedlab::test {

inline Metrics analyze_text(const std::string& text, FtraceStats* stats = nullptr) {
  std::istringstream in(text);
  Analyzer analyzer;
  const FtraceStats s = parse_ftrace(in, "test.txt", analyzer);
  if (stats) *stats = s;
  return analyzer.metrics();
}

inline const TaskMetrics& task(const Metrics& m, const std::string& name) {
  for (const TaskMetrics& t : m.tasks)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

}  // namespace schedlab::test
