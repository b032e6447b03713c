// Desktop loads of the 2009 fairness tests (WORKLOADS.md §4; all reconstructions):
//
// pert: a CPU hog that reads the clock in a loop and notes every gap, i.e. the time it
//   was descheduled. Here the hog is one task; the gaps are the analyzer's
//   `preempted_gaps` of the task (count, mean, max in --json).
//
// konsole: a terminal starting under load: `round_trips` (40) CPU bursts of `burst_ns`
//   (8 ms, so about 0.3 s of CPU), each followed by a synchronous round trip to the X
//   server (`x_ns`, 1 ms of X's time) or, every `daemon_every` (5) trips, to a desktop
//   daemon (`daemon_ns`, 2 ms); mark `konsole_ready` when done, so its first_ns is the
//   start-up time. The X server and the daemon are tasks of the generator, X at
//   `x_nice`; `cpus`, `x_cpus` pin konsole and X.
#include <fmt/format.h>

#include "workload/generators/builder.h"
#include "workload/generators/generators.h"

namespace schedlab {

namespace {

std::optional<std::vector<int>> read_cpus(const JsonReader& r, const JValue& v,
                                          const std::string& key, int machine_cpus) {
  std::vector<int> cpus = r.int_list(v, key);
  for (int c : cpus)
    if (c < 0 || c >= machine_cpus)
      r.fail(key, fmt::format("CPU {} is outside the machine's {} CPUs", c, machine_cpus));
  return cpus;
}

}  // namespace

void generate_pert(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  std::string name = "pert";
  std::optional<std::vector<int>> cpus;
  int nice = 0;
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "cpus")
      cpus = read_cpus(r, v, key, ctx.machine.cpus);
    else if (k == "nice")
      nice = static_cast<int>(r.integer_in(v, key, -20, 19));
    else if (k == "name")
      name = r.string(v, key);
    else
      r.fail(key, "unknown key (generator, cpus, nice, name)");
  }
  TaskSpec t = gen::one_shot(name, 1, {gen::run(100 * kNsPerMs)}, nice);
  t.loop = -1;
  t.cpus = cpus;
  gen::add_task(w, std::move(t));
}

void generate_konsole(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int round_trips = 40, daemon_every = 5, x_nice = 0;
  Time burst_ns = 8 * kNsPerMs, x_ns = kNsPerMs, daemon_ns = 2 * kNsPerMs, delay_ns = 0;
  std::optional<std::vector<int>> cpus, x_cpus;
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "round_trips")
      round_trips = static_cast<int>(r.integer_in(v, key, 1, 100'000));
    else if (k == "daemon_every")
      daemon_every = static_cast<int>(r.integer_in(v, key, 0, 100'000));
    else if (k == "burst_ns")
      burst_ns = r.duration(v, key, 1);
    else if (k == "x_ns")
      x_ns = r.duration(v, key, 1);
    else if (k == "daemon_ns")
      daemon_ns = r.duration(v, key, 1);
    else if (k == "delay_ns")
      delay_ns = r.duration(v, key, 1);
    else if (k == "x_nice")
      x_nice = static_cast<int>(r.integer_in(v, key, -20, 19));
    else if (k == "cpus")
      cpus = read_cpus(r, v, key, ctx.machine.cpus);
    else if (k == "x_cpus")
      x_cpus = read_cpus(r, v, key, ctx.machine.cpus);
    else
      r.fail(key,
             "unknown key (generator, round_trips, daemon_every, burst_ns, x_ns, daemon_ns, "
             "delay_ns, x_nice, cpus, x_cpus)");
  }
  const int32_t x_req = w.semaphores.intern("X.requests");
  const int32_t x_reply = w.semaphores.intern("X.replies");
  const int32_t d_req = w.semaphores.intern("kded.requests");
  const int32_t d_reply = w.semaphores.intern("kded.replies");
  const int32_t ready = w.marks.intern("konsole_ready");
  std::vector<Step> konsole;
  int to_daemon = 0;
  for (int i = 0; i < round_trips; ++i) {
    const bool daemon = daemon_every > 0 && (i + 1) % daemon_every == 0;
    to_daemon += daemon;
    konsole.push_back(gen::run(burst_ns));
    konsole.push_back(Step{Op::kSemPost, 0, 1, daemon ? d_req : x_req, -1, false, true});
    konsole.push_back(Step{Op::kSemWait, 0, 1, daemon ? d_reply : x_reply, -1, false, false});
  }
  konsole.push_back(gen::mark(ready));
  TaskSpec k = gen::one_shot("konsole", 1, std::move(konsole));
  k.cpus = cpus;
  k.delay_ns = delay_ns;
  gen::add_task(w, std::move(k));
  // X and the daemon serve konsole's requests, then exit.
  TaskSpec x = gen::one_shot("X", 1,
                             {Step{Op::kSemWait, 0, 1, x_req, -1, false, false}, gen::run(x_ns),
                              Step{Op::kSemPost, 0, 1, x_reply, -1, false, true}},
                             x_nice);
  x.phases.front().loop = round_trips - to_daemon;
  x.cpus = x_cpus;
  gen::add_task(w, std::move(x));
  if (to_daemon > 0) {
    TaskSpec d =
        gen::one_shot("kded", 1,
                      {Step{Op::kSemWait, 0, 1, d_req, -1, false, false}, gen::run(daemon_ns),
                       Step{Op::kSemPost, 0, 1, d_reply, -1, false, true}});
    d.phases.front().loop = to_daemon;
    gen::add_task(w, std::move(d));
  }
}

}  // namespace schedlab
