// SCHED_DEADLINE parameters of an extracted task: given or inferred (deadline_params.h).
#include "extract/deadline_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "util/error.h"

namespace schedlab {

namespace {

// A whole number of microseconds, 1 us .. 1000 s, as nanoseconds; 0 when it is not one.
Time microseconds(std::string_view text) {
  int64_t us = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), us);
  if (ec != std::errc() || end != text.data() + text.size() || us <= 0 || us > 1'000'000'000)
    return 0;
  return us * kNsPerUs;
}

}  // namespace

DlGiven parse_dl_option(const std::string& text) {
  const std::string key = "--dl " + text;
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("", key, "expected NAME_OR_PID=RUNTIME:DEADLINE:PERIOD (microseconds)");
  const std::string_view values = std::string_view(text).substr(eq + 1);
  const size_t c1 = values.find(':');
  const size_t c2 = c1 == std::string_view::npos ? c1 : values.find(':', c1 + 1);
  if (c2 == std::string_view::npos || values.find(':', c2 + 1) != std::string_view::npos)
    throw InputError("", key, "expected RUNTIME:DEADLINE:PERIOD after '=' (microseconds)");
  DlGiven g;
  g.who = text.substr(0, eq);
  g.runtime_ns = microseconds(values.substr(0, c1));
  g.deadline_ns = microseconds(values.substr(c1 + 1, c2 - c1 - 1));
  g.period_ns = microseconds(values.substr(c2 + 1));
  if (!g.runtime_ns || !g.deadline_ns || !g.period_ns)
    throw InputError("", key, "each of RUNTIME:DEADLINE:PERIOD is a whole number of us, 1..1e9");
  // sched_setattr() (__checkparam_dl): runtime <= deadline <= period
  if (g.runtime_ns > g.deadline_ns || g.deadline_ns > g.period_ns)
    throw InputError("", key, "needs runtime <= deadline <= period");
  return g;
}

std::optional<DlInferred> infer_dl(const std::vector<std::pair<Time, Time>>& wakes) {
  if (wakes.size() < 2) return std::nullopt;
  std::vector<Time> gaps;
  for (size_t i = 1; i < wakes.size(); ++i) gaps.push_back(wakes[i].first - wakes[i - 1].first);
  const auto mid = gaps.begin() + static_cast<long>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  const Time period = (*mid + kNsPerUs / 2) / kNsPerUs * kNsPerUs;
  if (period <= 0) return std::nullopt;
  // Whole jobs only: before the first wake-up a thread may set itself up (rt-app's make
  // themselves deadline tasks then), after the last it may tear down and exit.
  Time most = 0;
  for (size_t i = 1; i < wakes.size(); ++i)
    most = std::max(most, wakes[i].second - wakes[i - 1].second);
  const Time runtime = std::min(period, (most + kNsPerUs - 1) / kNsPerUs * kNsPerUs);
  if (runtime <= 0) return std::nullopt;
  return DlInferred{runtime, period};
}

}  // namespace schedlab
