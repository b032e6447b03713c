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
// glxgears, on one X server with a DRI1 driver (docs/workloads/desktop.md; the script
// was not found, the programs' rules are read from their sources of April 2007):
// - a shell per xterm writes a line (`line_ns`) into its pty, blocking when the pty
//   holds `pty_lines`;
// - the xterm reads `batch` lines (a screenful) at once and parses them (`parse_ns` per
//   line). Jump scroll sends X one copy of the window for the whole batch, line mode
//   (`scroll`) one copy per line; before each copy it waits until X has served its
//   previous one (xterm-225 util.c CopyWait: the NoExpose of the last copy);
// - X (at `x_nice`) serves each copy in `x_ns` holding the DRM hardware lock, which the
//   server takes in its wakeup handler and drops in its block handler (xorg-server
//   1.3.0.0 hw/xfree86/dri/dri.c:1399, 1432);
// - glxgears (`frame_ns` of CPU a frame, 1500 fps alone) takes the lock `lock_cycles`
//   times a frame (Mesa 6.5.3 r200: three in r200Clear, three in the swap; half, rounded
//   down, before the unlocked drawing, the rest after), each for
//   `locked_ns` of its frame's CPU, and calls sched_yield() after every swap
//   (r200_ioctl.c:513).
// The DRM lock is taken by a compare-and-swap or else by sleeping in the kernel; an
// unlock wakes every sleeper and hands the lock to none (drm_lock.c of 2.6.20): a
// spinlock that never spins and waits on an event.
#define GLITCH1_PARAMS(X)                                                                     \
  X(int, xterms, 3, params::range(0, 256), "assumption", "xterms, each fed by its own shell") \
  X(std::string, scroll, "jump", params::one_of({"jump", "line"}),                            \
    "E5; xterm-225 jumpScroll (on by default)",                                               \
    "jump: one copy per `batch` lines; line: one copy per line")                              \
  X(int, batch, 24, params::range(1, 100'000), "assumption (a screenful)",                    \
    "lines an xterm reads and parses at once")                                                \
  X(int, pty_lines, 64, params::range(1, 1'000'000),                                          \
    "2.6.20 N_TTY_BUF_SIZE 4096 bytes; 64-byte lines an assumption",                          \
    "lines a pty holds before its shell blocks")                                              \
  X(int, x_nice, 0, params::range(-20, 19), "E5 (-19 to 19)", "nice level of X")              \
  X(Time, line_ns, 20'000, params::duration(), "assumption", "a shell's CPU per line")        \
  X(Time, parse_ns, 30'000, params::duration(), "assumption", "an xterm's CPU per line")      \
  X(Time, x_ns, 300'000, params::duration(), "assumption", "X's CPU per copy")                \
  X(Time, frame_ns, 666'667, params::duration(), "E5: about 1500 fps alone",                  \
    "glxgears' CPU per frame, its locked sections included")                                  \
  X(bool, dri, true, params::any(), "E5: an in-kernel 3D driver",                             \
    "glxgears renders directly; drawing through X is not modelled")                           \
  X(bool, dri_lock, true, params::any(), "Mesa 6.5.3 r200_lock.h; xorg-server 1.3 dri.c",     \
    "glxgears and X share the DRM hardware lock")                                             \
  X(int, lock_cycles, 6, params::range(1, 1000), "Mesa 6.5.3 r200_ioctl.c",                   \
    "times glxgears takes the lock per frame")                                                \
  X(Time, locked_ns, 20'000, params::duration(), "assumption",                                \
    "glxgears' CPU per locked section (an ioctl and its set-up)")                             \
  X(bool, yield, true, params::any(), "Mesa 6.5.3 r200_ioctl.c:513",                          \
    "glxgears calls sched_yield() after every swap")
SCHEDLAB_DECLARE_PARAMS(Glitch1Params, GLITCH1_PARAMS)

void validate_glitch1(const Glitch1Params& p, const GeneratorContext& ctx) {
  if (!p.dri)
    gen::reject(ctx, &Glitch1Params::dri,
                "glxgears drawing through X (no direct rendering) is not modelled");
  if (p.dri_lock && p.locked_ns * p.lock_cycles > p.frame_ns)
    gen::reject(ctx, &Glitch1Params::locked_ns,
                fmt::format("{} locked sections of {} ns exceed the frame's {} ns", p.lock_cycles,
                            p.locked_ns, p.frame_ns));
}

// The DRM hardware lock: one compare-and-swap, else sleep in the kernel until an unlock
// wakes every sleeper to try again (no spinning, no hand-off).
SpinLockConfig drm_lock_config() {
  SpinLockConfig c;
  c.spin_ns = 0;
  c.fallback = SpinFallback::kEvent;
  return c;
}

void generate_glitch1(const Glitch1Params& p, const GeneratorContext&, Workload& w) {
  const int per_read = std::min(p.batch, p.pty_lines);
  const int copies_per_read = p.scroll == "jump" ? 1 : per_read;
  const int lines_per_copy = per_read / copies_per_read;
  const int32_t requests = w.semaphores.intern("X.copies");
  // What X has served: each xterm may have one copy in flight. The credits are pooled
  // (an xterm may go on with another's credit): the model has no per-client reply.
  const int32_t served = w.semaphores.intern("X.served");
  gen::set_semaphore_initial(w, served, p.xterms);
  const int32_t lines = w.marks.intern("lines");
  const int32_t redraws = w.marks.intern("redraws");
  const int32_t frames = w.marks.intern("gears_frames");
  int32_t dri = -1;
  int64_t dri_config = 0;
  if (p.dri_lock) {
    dri = w.spinlocks.intern("dri.lock");
    w.spin_configs.push_back(drm_lock_config());
    dri_config = static_cast<int64_t>(w.spin_configs.size() - 1);
  }
  const auto locked = [&](std::vector<Step>& steps, std::vector<Step> inside) {
    if (dri < 0) {
      steps.insert(steps.end(), inside.begin(), inside.end());
      return;
    }
    steps.push_back(gen::spin_lock(dri, dri_config));
    steps.insert(steps.end(), inside.begin(), inside.end());
    steps.push_back(gen::spin_unlock(dri));
  };
  for (int k = 0; k < p.xterms; ++k) {
    const int32_t pty = w.semaphores.intern(fmt::format("pty{}.lines", k));
    const int32_t space = w.semaphores.intern(fmt::format("pty{}.space", k));
    gen::set_semaphore_initial(w, space, p.pty_lines);
    gen::add_task(
        w, gen::looped(fmt::format("shell{}", k),
                       {gen::sem_wait(space), gen::run(p.line_ns), gen::sem_post(pty)}, INT64_MAX));
    // The read empties the pty (the shell may write again), then the lines are parsed and
    // scrolled, each copy after X has served the previous one.
    std::vector<Step> xterm{gen::sem_wait(pty, per_read), gen::sem_post(space, per_read)};
    for (int c = 0; c < copies_per_read; ++c) {
      xterm.push_back(gen::run(p.parse_ns * lines_per_copy));
      xterm.push_back(gen::sem_wait(served));
      xterm.push_back(gen::sem_post(requests));
      xterm.push_back(gen::mark(lines, lines_per_copy));
    }
    gen::add_task(w, gen::looped(fmt::format("xterm{}", k), std::move(xterm), INT64_MAX));
  }
  if (p.xterms > 0) {  // with no xterm X has nothing to do
    std::vector<Step> serve{gen::sem_wait(requests)};
    locked(serve, {gen::run(p.x_ns), gen::sem_post(served), gen::mark(redraws)});
    TaskSpec x = gen::one_shot("X", 1, std::move(serve), p.x_nice);
    x.phases.front().loop = INT64_MAX;
    gen::add_task(w, std::move(x));
  }
  // A frame: r200Clear's three locked sections, the gears' vertices unlocked, the swap's
  // three; then sched_yield.
  std::vector<Step> frame;
  const int cycles = p.dri_lock ? p.lock_cycles : 0;
  const int before = cycles / 2;
  const Time unlocked = p.frame_ns - cycles * p.locked_ns;
  for (int c = 0; c < before; ++c) locked(frame, {gen::run(p.locked_ns)});
  if (unlocked > 0) frame.push_back(gen::run(unlocked));
  for (int c = before; c < cycles; ++c) locked(frame, {gen::run(p.locked_ns)});
  frame.push_back(gen::mark(frames));
  if (p.yield) frame.push_back(gen::yield());
  gen::add_task(w, gen::looped("glxgears", std::move(frame), INT64_MAX));
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
