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

#include <algorithm>

#include "workload/generators/builder.h"
#include "workload/generators/generators.h"

namespace schedlab {

void generate_pert(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  std::string name = "pert";
  std::optional<std::vector<int>> cpus;
  int nice = 0;
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "cpus")
      cpus = read_generator_cpus(ctx, v, key);
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
      cpus = read_generator_cpus(ctx, v, key);
    else if (k == "x_cpus")
      x_cpus = read_generator_cpus(ctx, v, key);
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

namespace schedlab {

// glitch1.sh (2007): `xterms` terminals, each fed by a shell loop printing text, and
// glxgears, on one X server (WORKLOADS.md §4; a reconstruction):
// - a producer per xterm writes a line (`line_ns`) into its pty, blocking when the pty
//   holds `pty_lines`;
// - the xterm takes `batch` lines at once in jump mode (1 in line mode, `scroll`), parses
//   them (`parse_ns` per line), sends X one redraw request (asynchronous: no reply), and
//   frees the pty; mark `lines`;
// - X (at `x_nice`) serves redraws in arrival order, `x_ns` each; mark `redraws`;
// - glxgears draws frames of `frame_ns` (1500 fps alone) through the kernel's 3D driver,
//   without X, as on E5's machine (the indirect path through X is not modelled); mark
//   `gears_frames`.
void generate_glitch1(const JValue& spec, const GeneratorContext& ctx, Workload& w) {
  const JsonReader& r = ctx.reader;
  int xterms = 3, batch = 24, pty_lines = 64, x_nice = 0;
  std::string scroll = "jump";
  Time line_ns = 20'000, parse_ns = 30'000, x_ns = 300'000, frame_ns = 666'667;
  for (const auto& [k, v] : spec.members) {
    const std::string key = ctx.key + "." + k;
    if (k == "generator") continue;
    if (k == "xterms") {
      xterms = static_cast<int>(r.integer_in(v, key, 0, 256));
    } else if (k == "scroll") {
      scroll = r.string(v, key);
      if (scroll != "jump" && scroll != "line") r.fail(key, "expected jump or line");
    } else if (k == "batch") {
      batch = static_cast<int>(r.integer_in(v, key, 1, 100'000));
    } else if (k == "pty_lines") {
      pty_lines = static_cast<int>(r.integer_in(v, key, 1, 1'000'000));
    } else if (k == "x_nice") {
      x_nice = static_cast<int>(r.integer_in(v, key, -20, 19));
    } else if (k == "line_ns") {
      line_ns = r.duration(v, key, 1);
    } else if (k == "parse_ns") {
      parse_ns = r.duration(v, key, 1);
    } else if (k == "x_ns") {
      x_ns = r.duration(v, key, 1);
    } else if (k == "frame_ns") {
      frame_ns = r.duration(v, key, 1);
    } else if (k == "dri") {
      if (!r.boolean(v, key))
        r.fail(key, "glxgears drawing through X (no direct rendering) is not modelled");
    } else {
      r.fail(key,
             "unknown key (generator, xterms, scroll, batch, pty_lines, x_nice, line_ns, "
             "parse_ns, x_ns, frame_ns, dri)");
    }
  }
  const int per_redraw = scroll == "jump" ? std::min(batch, pty_lines) : 1;
  const int32_t requests = w.semaphores.intern("X.redraws");
  const int32_t lines = w.marks.intern("lines");
  const int32_t redraws = w.marks.intern("redraws");
  const int32_t frames = w.marks.intern("gears_frames");
  for (int k = 0; k < xterms; ++k) {
    const int32_t pty = w.semaphores.intern(fmt::format("pty{}.lines", k));
    const int32_t space = w.semaphores.intern(fmt::format("pty{}.space", k));
    if (static_cast<size_t>(space) >= w.semaphore_initial.size())
      w.semaphore_initial.resize(static_cast<size_t>(space) + 1, 0);
    w.semaphore_initial[static_cast<size_t>(space)] = pty_lines;
    TaskSpec producer =
        gen::one_shot(fmt::format("shell{}", k), 1,
                      {Step{Op::kSemWait, 0, 1, space, -1, false, false}, gen::run(line_ns),
                       Step{Op::kSemPost, 0, 1, pty, -1, false, false}});
    producer.phases.front().loop = INT64_MAX;
    gen::add_task(w, std::move(producer));
    TaskSpec xterm = gen::one_shot(
        fmt::format("xterm{}", k), 1,
        {Step{Op::kSemWait, 0, per_redraw, pty, -1, false, false}, gen::run(parse_ns * per_redraw),
         Step{Op::kSemPost, 0, 1, requests, -1, false, false}, gen::mark(lines, per_redraw),
         Step{Op::kSemPost, 0, per_redraw, space, -1, false, false}});
    xterm.phases.front().loop = INT64_MAX;
    gen::add_task(w, std::move(xterm));
  }
  if (xterms > 0) {  // with no xterm X has nothing to do
    TaskSpec x = gen::one_shot(
        "X", 1,
        {Step{Op::kSemWait, 0, 1, requests, -1, false, false}, gen::run(x_ns), gen::mark(redraws)},
        x_nice);
    x.phases.front().loop = INT64_MAX;
    gen::add_task(w, std::move(x));
  }
  TaskSpec gears = gen::one_shot("glxgears", 1, {gen::run(frame_ns), gen::mark(frames)});
  gears.phases.front().loop = INT64_MAX;
  gen::add_task(w, std::move(gears));
}

}  // namespace schedlab
