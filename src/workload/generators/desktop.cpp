// Desktop loads of the 2009 fairness tests (docs/workloads/desktop.md; all reconstructions):
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
#include "workload/generators/declare.h"

namespace schedlab {
namespace {

using params::CpuList;

#define PERT_PARAMS(X)                                                  \
  X(CpuList, cpus, std::nullopt, params::any(), "E4: pinned to CPU 0",  \
    "the CPUs it may run on; all: not pinned")                          \
  X(int, nice, 0, params::range(-20, 19), "schedlab", "its nice level") \
  X(std::string, name, "pert", params::any(), "schedlab", "the task's name")
SCHEDLAB_DECLARE_PARAMS(PertParams, PERT_PARAMS)

void generate_pert(const PertParams& p, const GeneratorContext&, Workload& w) {
  // A hog that never blocks: its 100 ms runs (any length would do) repeat forever.
  TaskSpec t = gen::one_shot(p.name, 1, {gen::run(100 * kNsPerMs)}, p.nice);
  t.loop = -1;
  t.cpus = p.cpus;
  gen::add_task(w, std::move(t));
}

#define KONSOLE_PARAMS(X)                                                                      \
  X(int, round_trips, 40, params::range(1, 100'000), "assumption (0.2-0.5 s of CPU in all)",   \
    "CPU bursts, each followed by a round trip")                                               \
  X(int, daemon_every, 5, params::range(0, 100'000), "assumption",                             \
    "every n-th round trip goes to the desktop daemon, the others to X; 0: none")              \
  X(Time, burst_ns, 8 * kNsPerMs, params::duration(), "assumption", "konsole's CPU per burst") \
  X(Time, x_ns, kNsPerMs, params::duration(), "assumption", "X's CPU per request")             \
  X(Time, daemon_ns, 2 * kNsPerMs, params::duration(), "assumption",                           \
    "the daemon's CPU per request")                                                            \
  X(Time, delay_ns, 0, params::duration(), "schedlab", "when konsole starts")                  \
  X(int, x_nice, 0, params::range(-20, 19), "schedlab", "nice level of X")                     \
  X(CpuList, cpus, std::nullopt, params::any(), "E4: pinned to CPU 0",                         \
    "konsole's CPUs; all: not pinned")                                                         \
  X(CpuList, x_cpus, std::nullopt, params::any(), "E4: pinned to CPU 0",                       \
    "X's CPUs; all: not pinned")
SCHEDLAB_DECLARE_PARAMS(KonsoleParams, KONSOLE_PARAMS)

void generate_konsole(const KonsoleParams& p, const GeneratorContext&, Workload& w) {
  const int32_t x_req = w.semaphores.intern("X.requests");
  const int32_t x_reply = w.semaphores.intern("X.replies");
  const int32_t d_req = w.semaphores.intern("kded.requests");
  const int32_t d_reply = w.semaphores.intern("kded.replies");
  const int32_t ready = w.marks.intern("konsole_ready");
  std::vector<Step> konsole;
  int to_daemon = 0;
  for (int i = 0; i < p.round_trips; ++i) {
    const bool daemon = p.daemon_every > 0 && (i + 1) % p.daemon_every == 0;
    to_daemon += daemon;
    konsole.push_back(gen::run(p.burst_ns));
    konsole.push_back(Step{Op::kSemPost, 0, 1, daemon ? d_req : x_req, -1, false, true});
    konsole.push_back(Step{Op::kSemWait, 0, 1, daemon ? d_reply : x_reply, -1, false, false});
  }
  konsole.push_back(gen::mark(ready));
  TaskSpec k = gen::one_shot("konsole", 1, std::move(konsole));
  k.cpus = p.cpus;
  k.delay_ns = p.delay_ns;
  gen::add_task(w, std::move(k));
  // X and the daemon serve konsole's requests, then exit.
  TaskSpec x = gen::one_shot("X", 1,
                             {Step{Op::kSemWait, 0, 1, x_req, -1, false, false}, gen::run(p.x_ns),
                              Step{Op::kSemPost, 0, 1, x_reply, -1, false, true}},
                             p.x_nice);
  x.phases.front().loop = p.round_trips - to_daemon;
  x.cpus = p.x_cpus;
  gen::add_task(w, std::move(x));
  if (to_daemon > 0) {
    TaskSpec d =
        gen::one_shot("kded", 1,
                      {Step{Op::kSemWait, 0, 1, d_req, -1, false, false}, gen::run(p.daemon_ns),
                       Step{Op::kSemPost, 0, 1, d_reply, -1, false, true}});
    d.phases.front().loop = to_daemon;
    gen::add_task(w, std::move(d));
  }
}

// glitch1.sh (2007): `xterms` terminals, each fed by a shell loop printing text, and
// glxgears, on one X server (docs/workloads/desktop.md; a reconstruction):
// - a producer per xterm writes a line (`line_ns`) into its pty, blocking when the pty
//   holds `pty_lines`;
// - the xterm takes `batch` lines at once in jump mode (1 in line mode, `scroll`), parses
//   them (`parse_ns` per line), sends X one redraw request (asynchronous: no reply), and
//   frees the pty; mark `lines`;
// - X (at `x_nice`) serves redraws in arrival order, `x_ns` each; mark `redraws`;
// - glxgears draws frames of `frame_ns` (1500 fps alone) through the kernel's 3D driver,
//   without X, as on E5's machine (the indirect path through X is not modelled); mark
//   `gears_frames`.
#define GLITCH1_PARAMS(X)                                                                     \
  X(int, xterms, 3, params::range(0, 256), "assumption", "xterms, each fed by its own shell") \
  X(std::string, scroll, "jump", params::one_of({"jump", "line"}), "E5",                      \
    "jump: an xterm redraws `batch` lines at once; line: every line")                         \
  X(int, batch, 24, params::range(1, 100'000), "assumption", "lines per redraw in jump mode") \
  X(int, pty_lines, 64, params::range(1, 1'000'000), "assumption",                            \
    "lines a pty holds before its shell blocks")                                              \
  X(int, x_nice, 0, params::range(-20, 19), "E5 (-19 to 19)", "nice level of X")              \
  X(Time, line_ns, 20'000, params::duration(), "assumption", "a shell's CPU per line")        \
  X(Time, parse_ns, 30'000, params::duration(), "assumption", "an xterm's CPU per line")      \
  X(Time, x_ns, 300'000, params::duration(), "assumption", "X's CPU per redraw")              \
  X(Time, frame_ns, 666'667, params::duration(), "E5: about 1500 fps alone",                  \
    "glxgears' CPU per frame")                                                                \
  X(bool, dri, true, params::any(), "E5: an in-kernel 3D driver",                             \
    "glxgears renders directly; drawing through X is not modelled")
SCHEDLAB_DECLARE_PARAMS(Glitch1Params, GLITCH1_PARAMS)

void validate_glitch1(const Glitch1Params& p, const GeneratorContext& ctx) {
  if (!p.dri)
    gen::reject(ctx, &Glitch1Params::dri,
                "glxgears drawing through X (no direct rendering) is not modelled");
}

void generate_glitch1(const Glitch1Params& p, const GeneratorContext&, Workload& w) {
  const int per_redraw = p.scroll == "jump" ? std::min(p.batch, p.pty_lines) : 1;
  const int32_t requests = w.semaphores.intern("X.redraws");
  const int32_t lines = w.marks.intern("lines");
  const int32_t redraws = w.marks.intern("redraws");
  const int32_t frames = w.marks.intern("gears_frames");
  for (int k = 0; k < p.xterms; ++k) {
    const int32_t pty = w.semaphores.intern(fmt::format("pty{}.lines", k));
    const int32_t space = w.semaphores.intern(fmt::format("pty{}.space", k));
    if (static_cast<size_t>(space) >= w.semaphore_initial.size())
      w.semaphore_initial.resize(static_cast<size_t>(space) + 1, 0);
    w.semaphore_initial[static_cast<size_t>(space)] = p.pty_lines;
    TaskSpec producer =
        gen::one_shot(fmt::format("shell{}", k), 1,
                      {Step{Op::kSemWait, 0, 1, space, -1, false, false}, gen::run(p.line_ns),
                       Step{Op::kSemPost, 0, 1, pty, -1, false, false}});
    producer.phases.front().loop = INT64_MAX;
    gen::add_task(w, std::move(producer));
    TaskSpec xterm = gen::one_shot(
        fmt::format("xterm{}", k), 1,
        {Step{Op::kSemWait, 0, per_redraw, pty, -1, false, false},
         gen::run(p.parse_ns * per_redraw), Step{Op::kSemPost, 0, 1, requests, -1, false, false},
         gen::mark(lines, per_redraw), Step{Op::kSemPost, 0, per_redraw, space, -1, false, false}});
    xterm.phases.front().loop = INT64_MAX;
    gen::add_task(w, std::move(xterm));
  }
  if (p.xterms > 0) {  // with no xterm X has nothing to do
    TaskSpec x = gen::one_shot("X", 1,
                               {Step{Op::kSemWait, 0, 1, requests, -1, false, false},
                                gen::run(p.x_ns), gen::mark(redraws)},
                               p.x_nice);
    x.phases.front().loop = INT64_MAX;
    gen::add_task(w, std::move(x));
  }
  TaskSpec gears = gen::one_shot("glxgears", 1, {gen::run(p.frame_ns), gen::mark(frames)});
  gears.phases.front().loop = INT64_MAX;
  gen::add_task(w, std::move(gears));
}

}  // namespace

GeneratorInfo pert_generator() {
  return gen::declare<PertParams>("pert", "a CPU hog noting the gaps when it was descheduled",
                                  generate_pert);
}

GeneratorInfo konsole_generator() {
  return gen::declare<KonsoleParams>(
      "konsole", "a terminal starting under load: CPU bursts and round trips to X",
      generate_konsole);
}

GeneratorInfo glitch1_generator() {
  return gen::declare<Glitch1Params>("glitch1",
                                     "glitch1.sh (2007): scrolling xterms, X and glxgears (E5)",
                                     generate_glitch1, validate_glitch1);
}

}  // namespace schedlab
