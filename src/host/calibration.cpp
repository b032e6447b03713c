#include "host/calibration.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "host/host_machine.h"
#include "host/host_session.h"
#include "host/load_check.h"
#include "host/probes.h"
#include "host/tracefs.h"
#include "host/user_dirs.h"
#include "json/jtree.h"
#include "scenario/scenario.h"
#include "util/input_file.h"

namespace schedlab {

namespace {

// How many samples each probe takes (quick: about a third).
struct Budget {
  int switch_batches, switch_rounds, wakeups, idle_1ms, idle_10ms, idle_100ms, timers, refills;
  Time corun_ns, noise_ns, resched_ns;
};
constexpr Budget kFull{
    30, 500, 300, 100, 30, 8, 300, 9, 400 * kNsPerMs, 2 * kNsPerSec, 400 * kNsPerMs};
constexpr Budget kQuick{
    10, 300, 100, 30, 10, 3, 100, 5, 150 * kNsPerMs, 500 * kNsPerMs, 150 * kNsPerMs};

// The delays from a task's wake-up (its sched_waking) to its switch-in, as a trace shows
// them, for the task named `name` (its wake-ups from a sleep only).
class SwitchInDelays final : public EventSink {
 public:
  explicit SwitchInDelays(std::string name) : name_(std::move(name)) {}
  void task_created(const TaskInfo& t) override {
    if (t.name == name_) id_ = t.id;
  }
  void event(const SchedEvent& e) override {
    if (id_ == kNoTask) return;
    if (e.type == EventType::kSwitch && e.arg != kStartState) {
      if (e.task == id_) sleeping_ = static_cast<PrevState>(e.detail) == PrevState::kBlocked;
      if (e.other == id_ && woken_at_ >= 0) {
        // an inferred switch-in (not in the trace) has no measured time
        if (e.arg != kInferredSwitch) samples.values.push_back(e.time - woken_at_);
        woken_at_ = -1;
      }
    } else if ((e.type == EventType::kWakeup || e.type == EventType::kWaking) && e.task == id_ &&
               sleeping_) {
      woken_at_ = e.time;
      sleeping_ = false;
    }
  }
  Samples samples;

 private:
  std::string name_;
  TaskId id_ = kNoTask;
  bool sleeping_ = false;
  Time woken_at_ = -1;
};

// A semaphore ping-pong: "ping" on CPU 0 and "pong" on `pong_cpu`, each running 20 us
// (an arbitrary short burst) between hand-offs.
std::string ping_pong(CpuId pong_cpu) {
  return fmt::format(R"({{"tasks": {{
      "ping": {{"cpus": [0], "loop": -1, "run": 20, "sem_post": "to_pong",
               "sem_wait": "to_ping"}},
      "pong": {{"cpus": [{}], "loop": -1, "sem_wait": "to_pong", "run": 20,
               "sem_post": "to_ping"}}}}}})",
                     pong_cpu);
}

// A probe runs on a thread of its own, so that its pinning leaves the caller's alone.
template <class Fn>
auto on_own_thread(Fn&& fn) {
  decltype(fn()) result{};
  std::thread t([&] { result = fn(); });
  t.join();
  return result;
}

// The topology classes of CPU pairs, nearest first, and the first CPU of each paired with 0.
struct PairClass {
  const char* name;
  CpuId cpu = kNoCpu;
};
std::vector<PairClass> pair_classes(const Machine& m) {
  std::vector<PairClass> classes{
      {"SMT sibling"}, {"shared cache"}, {"same package"}, {"other package"}};
  for (CpuId c = 1; c < m.cpus; ++c) {
    const size_t k = m.same_core(0, c) ? 0 : m.same_llc(0, c) ? 1 : m.same_package(0, c) ? 2 : 3;
    if (classes[k].cpu == kNoCpu) classes[k].cpu = c;
  }
  std::erase_if(classes, [](const PairClass& p) { return p.cpu == kNoCpu; });
  return classes;
}

class Calibrator {
 public:
  Calibrator(const CalibrationOptions& o, const std::function<void(const std::string&)>& progress)
      : budget_(o.quick ? kQuick : kFull), progress_(progress), load_(1) {
    c_.machine = host_machine();
    load_ = LoadCheck(c_.machine.cpus);
  }

  Calibration run() {
    const Time start = mono_now_ns();
    measure_switch();
    // The shared-cache pair (the common case of a remote wake-up) sets the machine's
    // figures if there is one, else the nearest pair; the others are reported.
    const std::vector<PairClass> pairs = pair_classes(c_.machine);
    size_t setter = 0;
    for (size_t i = 0; i < pairs.size(); ++i)
      if (std::string(pairs[i].name) == "shared cache") setter = i;
    for (size_t i = 0; i < pairs.size(); ++i) measure_wakeups(pairs[i], i == setter);
    measure_timer_resched();
    measure_local_return();
    measure_tick_restart();
    measure_remote_resched();
    measure_timer();
    measure_refill();
    measure_corun();
    measure_noise();
    c_.busy = load_.busy();
    c_.load = load_.summary();
    c_.seconds = static_cast<double>(mono_now_ns() - start) / 1e9;
    return std::move(c_);
  }

 private:
  void step(const std::string& what) {
    load_.sample();
    if (progress_) progress_(what);
  }
  CalibrationFigure& add(const std::string& name, const std::string& sets, const Samples& s) {
    return c_.figures.emplace_back(CalibrationFigure{
        name, sets, "ns", static_cast<double>(s.percentile(0.5)),
        static_cast<double>(s.percentile(0.1)), static_cast<double>(s.percentile(0.9)),
        s.values.size(), s.empty() ? "no sample" : ""});
  }
  void not_measured(const std::string& name, const std::string& sets, const std::string& why) {
    c_.figures.push_back({name, sets, "ns", 0, 0, 0, 0, "not measured: " + why});
  }
  MachineCosts& costs() { return c_.machine.costs; }

  void measure_switch() {
    step("context switch");
    const Samples s = on_own_thread(
        [&] { return context_switch(0, budget_.switch_batches, budget_.switch_rounds); });
    add("context switch (pipe ping-pong on CPU 0)", "context_switch_ns", s);
    switch_ns_ = s.percentile(0.5);
    c_.machine.context_switch_ns = std::max<Time>(1, switch_ns_);
  }

  // Onto a busy target the latency is the IPI and the switch; onto an idle one the exit
  // from the idle state comes on top.
  void measure_wakeups(const PairClass& p, bool sets) {
    const std::string pair = fmt::format("{}, 0->{}", p.name, p.cpu);
    auto wake = [&](int count, Time idle, bool busy) {
      return on_own_thread([&] { return futex_wakeups(0, p.cpu, count, idle, busy); });
    };
    step("remote wake-up, " + pair);
    const WakeSamples busy = wake(budget_.wakeups, 0, true);
    const WakeSamples shallow = wake(budget_.wakeups, 0, false);
    add("remote wake-up onto a busy CPU (" + pair + ")", sets ? "wakeup_ipi_ns unless traced" : "",
        busy.latency);
    add("remote wake-up onto a CPU idle a few us (" + pair + ")", "", shallow.latency);
    const Time busy_ns = busy.latency.percentile(0.5);
    std::vector<IdleState> states{
        {"a few us", 0, std::max<Time>(0, shallow.latency.percentile(0.5) - busy_ns)}};
    for (const auto& [idle, count] :
         {std::pair{kNsPerMs, budget_.idle_1ms}, std::pair{10 * kNsPerMs, budget_.idle_10ms},
          std::pair{100 * kNsPerMs, budget_.idle_100ms}}) {
      const std::string label = fmt::format("{} ms", idle / kNsPerMs);
      step("idle exit after " + label + ", " + pair);
      const WakeSamples w = wake(count, idle, false);
      add("remote wake-up onto a CPU idle " + label + " (" + pair + ")", sets ? "idle_exit_ns" : "",
          w.latency);
      states.push_back({label, idle, std::max<Time>(0, w.latency.percentile(0.5) - busy_ns)});
    }
    const Samples alone = on_own_thread([&] { return futex_wake_alone(0, budget_.wakeups); });
    Samples send = shallow.send;
    for (int64_t& v : send.values) v = std::max<int64_t>(0, v - alone.percentile(0.5));
    add("waker's FUTEX_WAKE less one waking nobody (" + pair + ")", sets ? "wakeup_send_ns" : "",
        send);
    if (!sets) return;
    remote_cpu_ = p.cpu;
    costs().wakeup_ipi_ns = std::max<Time>(1, busy_ns - switch_ns_);
    costs().wakeup_send_ns = std::max<Time>(1, send.percentile(0.5));
    c_.machine.idle_states = states;
  }

  // The model wakes a timer's task at expiry + overshoot + the idle exit, and switches it
  // in after the rest of the interrupt (timer_resched_ns, and tick_restart_ns when 1 ms is
  // a tick or more), then pays a switch.
  void measure_timer() {
    step("timer overshoot");
    const Samples s = on_own_thread([&] { return timer_overshoot(0, budget_.timers, kNsPerMs); });
    add("timer overshoot of a 1 ms sleep (CPU 0)", "timer_overshoot_ns", s);
    costs().timer_overshoot_ns =
        std::max<Time>(1, s.percentile(0.5) - c_.machine.idle_exit_ns(kNsPerMs) - switch_ns_ -
                              costs().timer_resched_ns -
                              (kNsPerMs >= c_.machine.tick_ns() ? costs().tick_restart_ns : 0));
  }

  // The delays from `task`'s sched_waking to its sched_switch in a run of `scenario`
  // recorded through tracefs, added to the table as `name`; empty (and the figure not
  // measured) without root or tracefs, or when the run fails.
  Samples traced_switch_in_delays(const std::string& name, const std::string& sets,
                                  const char* scenario, const std::string& task) {
    std::string why;
    if (geteuid() != 0) {
      not_measured(name, sets, "recording the kernel needs root");
      return {};
    }
    if (find_tracefs("", true, &why).empty()) {
      not_measured(name, sets, "tracefs is unavailable" + (why.empty() ? "" : ": " + why));
      return {};
    }
    step(name);
    Scenario s = scenario_from_text(scenario, "calibrate");
    s.duration_ns = budget_.resched_ns;
    SwitchInDelays delays(task);
    try {
      run_recorded(s, HostSessionOptions{}, delays);
    } catch (const std::exception& e) {
      not_measured(name, sets, e.what());
      return {};
    }
    add(name, sets, delays.samples);
    return delays.samples;
  }

  // A remote wake-up as the trace of a comparison shows it, from the waker's sched_waking
  // to the switch-in on the target: the IPI, the wake-up there and schedule(), with the
  // tracepoints' own cost on that path (validate and compare measure traced runs). A
  // semaphore ping-pong between CPU 0 and the pair's CPU, sampled on CPU 0 (this VM's
  // other CPU does not trace its switches out of idle), which idles 20 us between the
  // hand-offs: that idle state's exit is in the sample, and is taken out. Without root the
  // untraced end-to-end figure above (less a switch) stays.
  void measure_remote_resched() {
    if (remote_cpu_ == kNoCpu) return;
    const Samples s = traced_switch_in_delays(
        fmt::format("remote wake-up to its switch-in (traced, {}->0)", remote_cpu_),
        "wakeup_ipi_ns", ping_pong(remote_cpu_).c_str(), "ping");
    if (s.empty()) return;
    const Time exit = c_.machine.idle_exit_ns(20 * kNsPerUs);
    if (const auto ipi = traced_wakeup_ipi(s.percentile(0.5), exit)) {
      costs().wakeup_ipi_ns = *ipi;
    } else {
      c_.figures.back().sets =
          fmt::format("not set: no longer than the idle exit in it ({:.1f} us)",
                      static_cast<double>(exit) / 1e3);
    }
  }

  // What a trace shows from a timer's sched_waking to the woken task's sched_switch: a
  // SCHED_FIFO task on a 1 ms timer preempting a hog on CPU 0 (busy, so no idle exit is in
  // it). Needs root; without it the cost stays 0.
  void measure_timer_resched() {
    const Samples s = traced_switch_in_delays("timer wake-up to its switch-in (traced, CPU 0)",
                                              "timer_resched_ns", R"({"tasks": {
        "rt": {"cpus": [0], "policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 20,
               "timer": {"ref": "unique", "period": 1000, "mode": "absolute"}},
        "hog": {"cpus": [0], "loop": -1, "run": 10000}}})",
                                              "rt");
    if (!s.empty()) costs().timer_resched_ns = std::max<Time>(1, s.percentile(0.5));
  }

  // A wake-up on the waker's own CPU as a trace shows it: a semaphore ping-pong of two
  // tasks pinned to CPU 0, from the waker's sched_waking of its partner to the partner's
  // sched_switch. The waker first finishes its sem_post (the rest of the futex call and
  // its return), then either is preempted or goes on into its sem_wait and blocks; the
  // model charges that path to the waker (wakeup_return_ns) and switches after it. Needs
  // root; without it the cost stays 0.
  void measure_local_return() {
    const Samples s = traced_switch_in_delays("local wake-up to its switch-in (traced, CPU 0)",
                                              "wakeup_return_ns", ping_pong(0).c_str(), "pong");
    if (!s.empty()) costs().wakeup_return_ns = std::max<Time>(1, s.percentile(0.5));
  }

  // The same timer task alone on CPU 0 every 10 ms (or 2.5 ticks, if longer), so that the
  // CPU idles past its next tick and NO_HZ_IDLE stops the tick: the interrupt comes once
  // the CPU has left its idle state (the model charges that before the wake-up), and
  // after it the idle loop restarts the tick before the switch. That restart is what the
  // trace shows beyond the busy CPU's delay.
  void measure_tick_restart() {
    if (costs().timer_resched_ns == 0) return;
    const Time period = std::max<Time>(10 * kNsPerMs, 5 * c_.machine.tick_ns() / 2);
    const std::string scenario = fmt::format(R"({{"tasks": {{
        "rt": {{"cpus": [0], "policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 20,
               "timer": {{"ref": "unique", "period": {}, "mode": "absolute"}}}}}}}})",
                                             period / kNsPerUs);
    const Samples s = traced_switch_in_delays(
        fmt::format("timer wake-up to its switch-in, CPU 0 idle {} ms (traced)", period / kNsPerMs),
        "tick_restart_ns", scenario.c_str(), "rt");
    if (!s.empty())
      costs().tick_restart_ns = std::max<Time>(0, s.percentile(0.5) - costs().timer_resched_ns);
  }

  void measure_refill() {
    const Machine& m = c_.machine;
    int64_t bytes = private_cache_bytes(0);
    if (bytes <= 0) bytes = 1 << 20;
    CpuId within = kNoCpu, across = kNoCpu;
    for (CpuId c = 1; c < m.cpus; ++c) {
      if (within == kNoCpu && m.same_llc(0, c) && !m.same_core(0, c)) within = c;
      if (across == kNoCpu && !m.same_llc(0, c)) across = c;
    }
    const std::string size = fmt::format("{} KB", bytes / 1024);
    auto refill = [&](CpuId to, int64_t b) {
      return on_own_thread([&] { return migration_refill(0, to, b, budget_.refills); });
    };
    if (within != kNoCpu) {
      step("migration refill within a cache");
      const Samples s = refill(within, bytes);
      add(fmt::format("refill of {} after a move within a cache (0<->{})", size, within),
          "shared_cache_migration_cost_ns", s);
      c_.machine.shared_cache_migration_cost_ns = std::max<Time>(1, s.percentile(0.5));
    } else {
      not_measured("refill after a move within a cache", "shared_cache_migration_cost_ns",
                   "no two cores share a cache");
    }
    if (across != kNoCpu) {
      step("migration refill across caches");
      const Samples s = refill(across, bytes);
      add(fmt::format("refill of {} after a move across caches (0<->{})", size, across),
          "migration_cost_ns", s);
      c_.machine.migration_cost_ns = std::max<Time>(1, s.percentile(0.5));
      const Samples handed = refill(across, 16 * 1024);
      add(fmt::format("refill of 16 KB handed over across caches (0<->{})", across),
          "wakeup_refill_ns", handed);
      costs().wakeup_refill_ns = std::max<Time>(1, handed.percentile(0.5));
    } else {
      not_measured("refill after a move across caches", "migration_cost_ns",
                   "every CPU shares one cache");
      not_measured("refill of data handed over across caches", "wakeup_refill_ns",
                   "every CPU shares one cache");
    }
    measure_refill_by_size(within != kNoCpu ? within : across, bytes);
  }

  // The refill of larger working sets after the same move, for the table only: the machine
  // file keeps the refill of a private cache's worth (machine.h's migration cost).
  void measure_refill_by_size(CpuId to, int64_t private_bytes) {
    if (to == kNoCpu) return;
    step("migration refill by working-set size");
    for (const int64_t bytes : {4 * private_bytes, int64_t{16} << 20}) {
      if (bytes <= private_bytes || (bytes == int64_t{16} << 20 && 4 * private_bytes >= bytes))
        continue;
      const Samples s =
          on_own_thread([&] { return migration_refill(0, to, bytes, budget_.refills); });
      add(fmt::format("refill of {} KB after a move (0<->{})", bytes / 1024, to), "", s);
    }
  }

  // A factor measured kCorunRepeats times, alone and together in turn: the median sets it
  // (one measurement of a 2-vCPU VM's co-run slowdown ranged 0.0 to 0.64 over ten runs of
  // calibrate), the least and the greatest are the table's spread.
  static constexpr int kCorunRepeats = 3;
  void factor(const std::string& name, const std::string& sets,
              const std::function<double()>& measure, double& out) {
    std::vector<double> values;
    for (int i = 0; i < kCorunRepeats; ++i) values.push_back(measure());
    std::sort(values.begin(), values.end());
    const double value = values[values.size() / 2];
    c_.figures.push_back(
        {name, sets, "x", value, values.front(), values.back(), values.size(), ""});
    out = std::clamp(std::round(value * 1000) / 1000, 0.001, 16.0);
  }

  void measure_corun() {
    const Machine& m = c_.machine;
    CpuId shared = kNoCpu, sibling = kNoCpu;
    for (CpuId c = 1; c < m.cpus; ++c) {
      if (shared == kNoCpu && m.same_llc(0, c) && !m.same_core(0, c)) shared = c;
      if (sibling == kNoCpu && m.same_core(0, c)) sibling = c;
    }
    // Twice the last-level cache, so that the walk is memory-bound: memory_intensity 1.
    const int64_t bytes = 64 << 20;
    if (shared != kNoCpu) {
      step("co-run slowdown on a shared cache");
      factor(
          fmt::format("co-run slowdown of a 64 MB walk beside another (0, {})", shared),
          "shared_cache_slowdown",
          [&] { return corun_slowdown(0, shared, true, bytes, budget_.corun_ns); },
          costs().shared_cache_slowdown);
    } else {
      not_measured("co-run slowdown on a shared cache", "shared_cache_slowdown",
                   "no two cores share a cache");
    }
    if (sibling != kNoCpu) {
      step("co-run slowdown on SMT siblings");
      factor(
          fmt::format("co-run slowdown of a compute loop on SMT siblings (0, {})", sibling),
          "smt_slowdown", [&] { return corun_slowdown(0, sibling, false, 0, budget_.corun_ns); },
          costs().smt_slowdown);
    } else {
      not_measured("co-run slowdown on SMT siblings", "smt_slowdown", "no SMT siblings");
    }
  }

  // One source per CPU: the rate of the gaps where another task ran, their mean and longest.
  void measure_noise() {
    step("background noise");
    const std::vector<NoiseSamples> noise =
        on_own_thread([&] { return preempted_gaps(c_.machine.cpus, budget_.noise_ns); });
    for (const NoiseSamples& n : noise) {
      add(fmt::format("preempted gap of a pinned hog (CPU {}, {} per s, {} gaps in all)", n.cpu,
                      static_cast<double>(n.preempted.values.size()) * 1e9 /
                          static_cast<double>(n.duration_ns),
                      n.gaps),
          "background", n.preempted);
      if (n.preempted.empty()) continue;
      BackgroundSource s;
      s.cpus = std::vector<int>{n.cpu};
      s.rate_hz = std::round(static_cast<double>(n.preempted.values.size()) * 1e9 /
                             static_cast<double>(n.duration_ns) * 10) /
                  10;
      int64_t total = 0;
      for (int64_t v : n.preempted.values) total += v;
      s.burst_ns = std::max<int64_t>(1, total / static_cast<int64_t>(n.preempted.values.size()));
      s.burst_max_ns = std::max(s.burst_ns, n.preempted.percentile(1.0));
      c_.machine.background.push_back(s);
    }
  }

  Budget budget_;
  std::function<void(const std::string&)> progress_;
  LoadCheck load_;
  Calibration c_;
  Time switch_ns_ = 0;
  CpuId remote_cpu_ = kNoCpu;  // the CPU of the pair whose wake-ups set the machine's figures
};

std::string shown(const CalibrationFigure& f, double v) {
  if (f.unit == "x") return fmt::format("{:.3f}", v);
  if (v >= 1e6) return fmt::format("{:.2f} ms", v / 1e6);
  return fmt::format("{:.1f} us", v / 1e3);
}

}  // namespace

// The idle exit comes from the untraced wake-ups; when it is as long as the whole traced
// figure the two disagree (a shallow idle state is entered in some runs and not in others:
// the untraced figure onto a CPU idle a few us is 18-20 us or about 30 us on this VM),
// and the untraced IPI figure stays rather than an IPI of nothing.
std::optional<Time> traced_wakeup_ipi(Time traced_ns, Time idle_exit_ns) {
  if (traced_ns <= idle_exit_ns) return std::nullopt;
  return traced_ns - idle_exit_ns;
}

Calibration calibrate_machine(const CalibrationOptions& options,
                              const std::function<void(const std::string&)>& progress) {
  return Calibrator(options, progress).run();
}

std::string calibration_table(const Calibration& c) {
  std::string out = fmt::format("{:<72} {:>10} {:>21} {:>7}  {}\n", "figure", "median",
                                "10th-90th percentile", "samples", "sets");
  for (const CalibrationFigure& f : c.figures) {
    if (!f.note.empty()) {
      out +=
          fmt::format("{:<72} {:>10} {:>21} {:>7}  {} ({})\n", f.name, "-", "-", 0, f.sets, f.note);
      continue;
    }
    const std::string spread = fmt::format("{} - {}", shown(f, f.p10), shown(f, f.p90));
    out += fmt::format("{:<72} {:>10} {:>21} {:>7}  {}\n", f.name, shown(f, f.p50), spread,
                       f.samples, f.sets);
  }
  return out;
}

std::string cached_machine_path(std::string* why) {
  const std::string dir = cache_dir("", why);
  return dir.empty() ? std::string() : dir + "/machine.json";
}

Machine model_of_this_machine(const std::string& file, std::string* which) {
  auto read = [](const std::string& path) {
    return read_machine(parse_json_file(path), JsonReader(path),
                        std::filesystem::path(path).parent_path().string(), 1);
  };
  if (!file.empty()) {
    *which = file;
    return read(file);
  }
  Machine host = host_machine();
  std::string why;
  const std::string cached = cached_machine_path(&why);
  if (const std::optional<std::string> text =
          cached.empty() ? std::nullopt : read_cache_file(cached, max_input_bytes())) {
    Machine m = read_machine(parse_json(*text, cached), JsonReader(cached),
                             std::filesystem::path(cached).parent_path().string(), 1);
    if (m.cpus == host.cpus) {
      *which = cached + " (calibrated)";
      return m;
    }
    *which = fmt::format(
        "this host's topology, no costs ({} is for {} CPUs, this host has {}: "
        "run `schedlab calibrate`)",
        cached, m.cpus, host.cpus);
    return host;
  }
  *which = cached.empty()
               ? "this host's topology, no costs (no calibration cache: " + why + ")"
               : "this host's topology, no costs (no calibration yet: run `schedlab calibrate`)";
  return host;
}

}  // namespace schedlab
