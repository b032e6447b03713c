// make -jN of a kernel-like tree (WORKLOADS.md §5): make keeps at most N jobs running;
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
#include "workload/generators/generators.h"

namespace schedlab {

void generate_kbuild(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int jobs = ctx.machine.cpus, objects = 100;
  double compile_ms = 300, sigma = 0.5;
  Time driver_ns = 5 * kNsPerMs, as_ns = 20 * kNsPerMs, link_ns = 2000 * kNsPerMs;
  std::string name = "make";
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "jobs")
      jobs = static_cast<int>(r.integer_in(v, key, 1, 4096));
    else if (k == "objects")
      objects = static_cast<int>(r.integer_in(v, key, 1, 100'000));
    else if (k == "compile_ms")
      compile_ms = static_cast<double>(r.integer_in(v, key, 1, 1'000'000));
    else if (k == "sigma_percent")
      sigma = static_cast<double>(r.integer_in(v, key, 0, 300)) / 100.0;
    else if (k == "driver_ns")
      driver_ns = r.duration(v, key, 1);
    else if (k == "as_ns")
      as_ns = r.duration(v, key, 1);
    else if (k == "link_ns")
      link_ns = r.duration(v, key, 1);
    else if (k == "name")
      name = r.string(v, key);
    else
      r.fail(key,
             "unknown key (generator, jobs, objects, compile_ms, sigma_percent, driver_ns, as_ns, "
             "link_ns, name)");
  }
  const int32_t slots = w.semaphores.intern(name + ".jobs");
  if (static_cast<size_t>(slots) >= w.semaphore_initial.size())
    w.semaphore_initial.resize(static_cast<size_t>(slots) + 1, 0);
  w.semaphore_initial[static_cast<size_t>(slots)] = jobs;
  const int32_t built = w.counters.intern(name + ".objects");
  const int32_t objects_mark = w.marks.intern("objects");
  Rng rng(ctx.seed ^ 0x6b6275696c64ULL);  // "kbuild"

  std::vector<Step> make_steps;
  for (int i = 0; i < objects; ++i) {
    // Box-Muller: a standard normal from two uniforms, for the lognormal compile time.
    const double u1 = 1.0 - rng.unit(), u2 = rng.unit();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    const auto compile_ns = static_cast<Time>(compile_ms * 1e6 * std::exp(sigma * z));
    const int32_t cc1_done = w.counters.intern(fmt::format("{}.{}.cc1", name, i));
    const int32_t as_done = w.counters.intern(fmt::format("{}.{}.as", name, i));
    const int32_t cc1 = gen::add_task(
        w,
        gen::one_shot(fmt::format("cc1-{}", i), 0, {gen::run(compile_ns), gen::advance(cc1_done)}));
    const int32_t as = gen::add_task(
        w, gen::one_shot(fmt::format("as-{}", i), 0, {gen::run(as_ns), gen::advance(as_done)}));
    const int32_t driver = gen::add_task(
        w, gen::one_shot(
               fmt::format("gcc-{}", i), 0,
               {gen::run(driver_ns), gen::fork(cc1), gen::wait_progress(cc1_done, 1), gen::fork(as),
                gen::wait_progress(as_done, 1), gen::advance(built), gen::mark(objects_mark),
                Step{Op::kSemPost, 0, 1, slots, -1, false, false}}));
    make_steps.push_back(Step{Op::kSemWait, 0, 1, slots, -1, false, false});
    make_steps.push_back(gen::fork(driver));
  }
  const int32_t linked = w.counters.intern(name + ".linked");
  const int32_t ld =
      gen::add_task(w, gen::one_shot("ld", 0, {gen::run(link_ns), gen::advance(linked)}));
  make_steps.push_back(gen::wait_progress(built, objects));
  make_steps.push_back(gen::fork(ld));
  make_steps.push_back(gen::wait_progress(linked, 1));
  gen::add_task(w, gen::one_shot(name, 1, std::move(make_steps)));
}

}  // namespace schedlab
