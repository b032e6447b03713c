// make -jN of a kernel-like tree (docs/workloads/kbuild.md): make keeps at most N jobs running;
// each object file is a fork/exec/exit chain, the gcc driver forking cc1 (the compile
// proper) and then as, waiting for each; when every object is built, one serial link.
//
// In the core vocabulary: job slots are a counting semaphore of N; make takes a slot and
// forks the object's driver task; the driver forks cc1 and as in turn and waits for each
// through a progress counter, then counts the object (mark `objects`) and frees its slot.
// make waits for all objects, then forks ld and waits for it.
//
// Assumptions (parameters): compile times lognormal with median `compile_ms` 300 ms and
// `sigma` 0.5, drawn per object from the scenario's seed; driver 5 ms, as 20 ms, link
// 2000 ms; `objects` 100; `jobs` defaults to the CPU count.
#include <fmt/format.h>

#include <cmath>

#include "util/rng.h"
#include "workload/generators/builder.h"
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

#define KBUILD_PARAMS(X)                                                                        \
  X(int, jobs, 0, params::range(1, 4096).or_word("auto", 0), "make -jN",                        \
    "job slots; auto: the machine's CPU count")                                                 \
  X(int, objects, 100, params::range(1, 100'000), "assumption", "object files to build")        \
  X(int64_t, compile_ms, 300, params::range(1, 1'000'000), "assumption",                        \
    "median CPU of one compile (cc1), lognormal")                                               \
  X(int, sigma_percent, 50, params::range(0, 300), "assumption",                                \
    "spread of the compile times: sigma of their logarithm, in percent")                        \
  X(Time, driver_ns, 5 * kNsPerMs, params::duration(), "assumption",                            \
    "the gcc driver's own CPU per object")                                                      \
  X(Time, as_ns, 20 * kNsPerMs, params::duration(), "assumption",                               \
    "the assembler's CPU per object")                                                           \
  X(Time, link_ns, 2000 * kNsPerMs, params::duration(), "assumption", "the final, serial link") \
  X(std::string, name, "make", params::any(), "schedlab", "the make task and its objects' prefix")
SCHEDLAB_DECLARE_PARAMS(KbuildParams, KBUILD_PARAMS)

// A compile time drawn from the lognormal of median `compile_ms` and spread `sigma`.
Time compile_time(Rng& rng, double compile_ms, double sigma) {
  // Box-Muller: a standard normal from two uniforms.
  const double u1 = 1.0 - rng.unit(), u2 = rng.unit();
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  return static_cast<Time>(compile_ms * 1e6 * std::exp(sigma * z));
}

void generate(const KbuildParams& p, const GeneratorContext& ctx, Workload& w) {
  const std::string& name = p.name;
  const int jobs = p.jobs > 0 ? p.jobs : ctx.machine.cpus;
  const auto compile_ms = static_cast<double>(p.compile_ms);
  const double sigma = static_cast<double>(p.sigma_percent) / 100.0;
  const int32_t slots = w.semaphores.intern(name + ".jobs");
  gen::set_semaphore_initial(w, slots, jobs);
  const int32_t built = w.counters.intern(name + ".objects");
  const int32_t objects_mark = w.marks.intern("objects");
  Rng rng(ctx.seed ^ 0x6b6275696c64ULL);  // "kbuild": a stream of its own

  std::vector<Step> make_steps;
  for (int i = 0; i < p.objects; ++i) {
    const Time compile_ns = compile_time(rng, compile_ms, sigma);
    const int32_t cc1_done = w.counters.intern(fmt::format("{}.{}.cc1", name, i));
    const int32_t as_done = w.counters.intern(fmt::format("{}.{}.as", name, i));
    const int32_t cc1 = gen::add_task(
        w,
        gen::one_shot(fmt::format("cc1-{}", i), 0, {gen::run(compile_ns), gen::advance(cc1_done)}));
    const int32_t as = gen::add_task(
        w, gen::one_shot(fmt::format("as-{}", i), 0, {gen::run(p.as_ns), gen::advance(as_done)}));
    const int32_t driver = gen::add_task(
        w, gen::one_shot(
               fmt::format("gcc-{}", i), 0,
               {gen::run(p.driver_ns), gen::fork(cc1), gen::wait_progress(cc1_done, 1),
                gen::fork(as), gen::wait_progress(as_done, 1), gen::advance(built),
                gen::mark(objects_mark), Step{Op::kSemPost, 0, 1, slots, -1, false, false}}));
    make_steps.push_back(Step{Op::kSemWait, 0, 1, slots, -1, false, false});
    make_steps.push_back(gen::fork(driver));
  }
  const int32_t linked = w.counters.intern(name + ".linked");
  const int32_t ld =
      gen::add_task(w, gen::one_shot("ld", 0, {gen::run(p.link_ns), gen::advance(linked)}));
  make_steps.push_back(gen::wait_progress(built, p.objects));
  make_steps.push_back(gen::fork(ld));
  make_steps.push_back(gen::wait_progress(linked, 1));
  gen::add_task(w, gen::one_shot(name, 1, std::move(make_steps)));
}

}  // namespace

GeneratorInfo kbuild_generator() {
  return gen::declare<KbuildParams>(
      "kbuild", "make -jN of a kernel-like tree: fork/exec chains of gcc, cc1 and as, then ld",
      generate);
}

}  // namespace schedlab
