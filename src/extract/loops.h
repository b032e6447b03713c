// Loop compression of an extracted program: a stretch that repeats (the same steps with
// the same objects, durations within a tolerance of the first repetition's) becomes one
// phase looped that many times, with each step's duration the mean over the
// repetitions, so a task's total CPU time changes by less than a nanosecond per
// repetition. The rest stays as it was, in phases of loop 1.
#pragma once

#include <vector>

#include "extract/extract.h"

namespace schedlab {

// Greedy from the left: at each position the period (1..kMaxLoopPeriod steps) that
// covers the most steps with at least two repetitions wins; ties go to the shorter one.
inline constexpr size_t kMaxLoopPeriod = 32;

std::vector<XPhase> compress_loops(const std::vector<XStep>& steps, int tolerance_percent,
                                   Time tolerance_floor_ns);

}  // namespace schedlab
