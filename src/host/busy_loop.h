// The host runner's unit of fixed work: `n` turns of an empty loop. `run` steps spin it
// for their duration at the speed the runner measured, and that measurement times this
// same function, so the two cannot disagree.
//
// Why one out-of-line function: the loop used to be inlined twice, once in the speed
// measurement (a constant count, compiled as one fused sub/jne) and once in the run step
// (an add/cmp/jne whose jump crossed a 64-byte line). On this AMD EPYC VM the second ran
// at half the speed of the first, so every `run` took twice its duration and
// `validate` saw sim/real marks of 2.0. Kept in its own file so the compiler sees neither
// caller's count, and aligned to a cache line so its few bytes sit in one fetch window.
#pragma once

#include <cstdint>

namespace schedlab {

[[gnu::noinline]] void busy_loop(uint64_t n);

}  // namespace schedlab
