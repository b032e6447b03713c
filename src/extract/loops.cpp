// Loop compression (loops.h).
#include "extract/loops.h"

#include <algorithm>

namespace schedlab {

namespace {

bool same_step(const XStep& a, const XStep& b, int percent, Time floor_ns) {
  if (a.kind != b.kind || a.ref != b.ref || a.sync != b.sync) return false;
  const Time diff = a.ns > b.ns ? a.ns - b.ns : b.ns - a.ns;
  return diff <= std::max(floor_ns, std::max(a.ns, b.ns) * percent / 100);
}

// How many times steps[at, at + period) repeats from `at` (1: no repeat).
size_t repeats(const std::vector<XStep>& steps, size_t at, size_t period, int percent,
               Time floor_ns) {
  size_t n = 1;
  while (at + (n + 1) * period <= steps.size()) {
    for (size_t k = 0; k < period; ++k)
      if (!same_step(steps[at + k], steps[at + n * period + k], percent, floor_ns)) return n;
    ++n;
  }
  return n;
}

}  // namespace

std::vector<XPhase> compress_loops(const std::vector<XStep>& steps, int tolerance_percent,
                                   Time tolerance_floor_ns) {
  std::vector<XPhase> out;
  size_t at = 0;
  while (at < steps.size()) {
    size_t best_period = 0, best_count = 1;
    for (size_t period = 1; period <= kMaxLoopPeriod && at + 2 * period <= steps.size(); ++period) {
      const size_t n = repeats(steps, at, period, tolerance_percent, tolerance_floor_ns);
      if (n >= 2 && n * period > best_count * std::max<size_t>(best_period, 1)) {
        best_period = period;
        best_count = n;
      }
    }
    if (best_period == 0) {
      if (out.empty() || out.back().loop != 1) out.push_back({1, {}});
      out.back().steps.push_back(steps[at]);
      ++at;
      continue;
    }
    XPhase loop{static_cast<int64_t>(best_count), {}};
    for (size_t k = 0; k < best_period; ++k) {
      XStep s = steps[at + k];
      Time sum = 0;
      for (size_t r = 0; r < best_count; ++r) sum += steps[at + r * best_period + k].ns;
      s.ns = sum / static_cast<Time>(best_count);
      loop.steps.push_back(s);
    }
    out.push_back(std::move(loop));
    at += best_period * best_count;
  }
  return out;
}

}  // namespace schedlab
