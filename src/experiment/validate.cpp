#include "experiment/validate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/analyzer.h"
#include "host/calibration.h"
#include "host/host_machine.h"
#include "host/host_runner.h"
#include "host/load_check.h"
#include "host/tracefs.h"
#include "report/json_text.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {

namespace {

// What one run gives each metric.
struct RunFigures {
  std::map<std::string, double> share;  // per task
  std::optional<double> marks_per_s;
  double switches_per_s = 0, migrations_per_s = 0;
  std::optional<double> latency_p50, latency_p99;
};

RunFigures figures_of(const Metrics& m, const WakeupLatencies& w) {
  RunFigures f;
  const double seconds = static_cast<double>(std::max<Time>(1, m.duration_ns)) / 1e9;
  uint64_t switches = 0, migrations = 0;
  for (const TaskMetrics& t : m.tasks) {
    f.share[t.name] = static_cast<double>(t.cpu_time_ns) / 1e9 / seconds;
    switches += t.switches_voluntary + t.switches_involuntary;
    migrations += t.migrations;
  }
  f.switches_per_s = static_cast<double>(switches) / seconds;
  f.migrations_per_s = static_cast<double>(migrations) / seconds;
  if (!m.marks.empty()) {
    uint64_t marks = 0;
    for (const auto& [name, mk] : m.marks) marks += mk.count;
    f.marks_per_s = static_cast<double>(marks) / seconds;
  }
  if (w.latencies.count() > 0) {
    f.latency_p50 = static_cast<double>(w.latencies.percentile(0.5));
    f.latency_p99 = static_cast<double>(w.latencies.percentile(0.99));
  }
  return f;
}

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

template <class Get>
MetricComparison compare_runs(const std::vector<RunFigures>& real,
                              const std::vector<RunFigures>& sim, Get get) {
  auto collect = [&](const std::vector<RunFigures>& runs) {
    std::vector<double> v;
    for (const RunFigures& f : runs)
      if (const std::optional<double> x = get(f)) v.push_back(*x);
    return v;
  };
  const std::vector<double> reals = collect(real);
  MetricComparison c;
  c.real = median(reals);
  c.sim = median(collect(sim));
  c.real_spread = repeat_spread(reals);
  return c;
}

// The cpu share of the task furthest from its real share, among those with 2 % of a run.
MetricComparison compare_shares(const std::vector<RunFigures>& real,
                                const std::vector<RunFigures>& sim) {
  MetricComparison worst;
  double worst_log = -1;
  for (const auto& [name, share] : real.front().share) {
    const std::string task = name;
    auto get = [&task](const RunFigures& f) -> std::optional<double> {
      const auto it = f.share.find(task);
      return it == f.share.end() ? std::nullopt : std::optional<double>(it->second);
    };
    MetricComparison c = compare_runs(real, sim, get);
    if (!c.real || *c.real < 0.02 || !c.sim) continue;
    const std::optional<double> ratio = c.ratio();
    const double d = ratio && *ratio > 0 ? std::fabs(std::log(*ratio)) : 1e9;
    if (d > worst_log) {
      worst_log = d;
      worst = c;
      worst.detail = task;
    }
  }
  return worst;
}

ScenarioComparison compare_scenario(const std::string& name, const std::vector<RunFigures>& real,
                                    const std::vector<RunFigures>& sim) {
  ScenarioComparison s;
  s.name = name;
  s.metrics.push_back(compare_shares(real, sim));
  s.metrics.push_back(compare_runs(real, sim, [](const RunFigures& f) { return f.marks_per_s; }));
  s.metrics.push_back(compare_runs(
      real, sim, [](const RunFigures& f) { return std::optional<double>(f.switches_per_s); }));
  s.metrics.push_back(compare_runs(
      real, sim, [](const RunFigures& f) { return std::optional<double>(f.migrations_per_s); }));
  s.metrics.push_back(compare_runs(real, sim, [](const RunFigures& f) { return f.latency_p50; }));
  s.metrics.push_back(compare_runs(real, sim, [](const RunFigures& f) { return f.latency_p99; }));
  return s;
}

class Validator {
 public:
  Validator(const ValidateOptions& o, const std::function<void(const std::string&)>& progress)
      : o_(o), progress_(progress), load_(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))) {
    if (o.uncalibrated) {
      machine_ = host_machine();
      which_ = "this host's topology, no costs (--uncalibrated)";
    } else {
      machine_ = model_of_this_machine(o.machine_file, &which_);
    }
  }

  ValidationReport run(const std::vector<std::string>& files) {
    ValidationReport r;
    r.machine = which_;
    r.kernel = host_kernel_release();
    r.policy = o_.policy.empty() ? model_for_kernel(r.kernel) : o_.policy;
    r.repeats = o_.repeats;
    for (const std::string& file : files) {
      ScenarioComparison s = run_scenario(file, r.policy);
      r.runs += o_.repeats;
      r.busy_runs += s.busy_runs;
      r.scenarios.push_back(std::move(s));
    }
    r.busy_before = busy_before_;
    r.stolen = stolen_;
    r.drifted = drifted_;
    if (!loop_speeds_.empty()) {
      const auto [lo, hi] = std::minmax_element(loop_speeds_.begin(), loop_speeds_.end());
      r.loop_speed_min = *lo;
      r.loop_speed_max = *hi;
    }
    summarise_validation(r);
    return r;
  }

 private:
  ScenarioComparison run_scenario(const std::string& file, const std::string& policy) {
    ScenarioOverrides over;
    if (o_.duration_s > 0) over.duration_s = o_.duration_s;
    Scenario scenario = load_scenario(file, over);
    const std::string name = std::filesystem::path(file).stem().string();
    std::vector<RunFigures> real, sim;
    int busy = 0;
    try {
      for (int k = 0; k < o_.repeats; ++k) {
        if (progress_) progress_(fmt::format("{} run {} of {}", name, k + 1, o_.repeats));
        const auto [figures, duration, was_busy, blind] = run_real(scenario);
        real.push_back(figures);
        busy += was_busy;
        sim.push_back(run_sim(scenario, policy, duration, static_cast<uint64_t>(k + 1), blind));
      }
    } catch (const std::exception& e) {
      ScenarioComparison failed;
      failed.name = name;
      failed.error = e.what();
      return failed;
    }
    ScenarioComparison s = compare_scenario(name, real, sim);
    s.busy_runs = busy;
    return s;
  }

  // A few samples of the other runnable tasks while nothing of ours runs.
  bool busy_now() {
    LoadCheck before(load_);
    for (int i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      before.sample();
    }
    return before.others_mean() >= 0.5;
  }

  // The figures, the run's length, whether the machine was busy, and the CPUs whose
  // switches out of idle the trace lacks (WakeupLatencies::blind_cpus).
  std::tuple<RunFigures, Time, bool, std::vector<char>> run_real(const Scenario& scenario) {
    const bool busy_before = busy_now();
    Analyzer analyzer;
    WakeupLatencies latencies;
    SinkList sinks;
    sinks.add(&analyzer);
    sinks.add(&latencies);
    // The busy loop is timed again before every run: on a VM its speed drifts with the
    // host (7,100 to 7,990 loops/us within a minute on the KVM development VM, 5,940 two
    // hours earlier, 2026-12-02), and a cached speed off by 30 % made every `run` step 30 %
    // shorter.
    HostSessionOptions session = o_.session;
    session.recalibrate = true;
    const CpuTimes cpu_before = cpu_times();
    const HostSessionResult result = run_recorded(scenario, session, sinks);
    if (result.interrupted) throw InputError("", "", "interrupted");
    loop_speeds_.push_back(result.loops_per_us);
    // A VM's CPU can change speed under it (another guest on its core, the host's clock)
    // or be taken away (steal), which no runnable-task count sees: the loop is timed again
    // after the run.
    const double stolen = steal_share(cpu_before, cpu_times());
    const RunDoubts doubts =
        doubts_of_run(busy_before, stolen, result.loops_per_us, time_busy_loop());
    busy_before_ += doubts.busy_before;
    stolen_ += doubts.stolen;
    drifted_ += doubts.drifted;
    return {figures_of(analyzer.metrics(), latencies), analyzer.metrics().duration_ns, doubts.any(),
            latencies.blind_cpus};
  }

  RunFigures run_sim(Scenario scenario, const std::string& policy, Time duration, uint64_t seed,
                     const std::vector<char>& blind_cpus) {
    scenario.machine = machine_;
    scenario.policy = policy;
    scenario.params.clear();
    scenario.seed = seed;
    scenario.duration_ns = std::max<Time>(1, duration);
    Analyzer analyzer;
    WakeupLatencies latencies(blind_cpus);
    SinkList sinks;
    sinks.add(&analyzer);
    sinks.add(&latencies);
    in_scenario(scenario.file, [&] { return simulate(scenario, sinks, SimulationOptions{}); });
    return figures_of(analyzer.metrics(), latencies);
  }

  const ValidateOptions& o_;
  std::function<void(const std::string&)> progress_;
  LoadCheck load_;
  Machine machine_;
  std::string which_;
  std::vector<double> loop_speeds_;
  int busy_before_ = 0, stolen_ = 0, drifted_ = 0;
};

// The targets on a quiet machine, as |sim/real - 1| (0: none set).
double target_of(const std::string& metric) {
  if (metric == "cpu share") return 0.10;
  if (metric == "marks/s") return 0.15;
  if (metric == "switches/s") return 0.50;
  if (metric == "latency p50") return 0.50;
  return 0;
}

std::string ratio_text(const MetricComparison& c) {
  if (!c.real && !c.sim) return "-";
  const std::optional<double> r = c.ratio();
  if (!r) return c.real && *c.real == 0 ? "sim only" : "-";
  return fmt::format("{:.2f}", *r);
}

}  // namespace

std::optional<double> repeat_spread(const std::vector<double>& values) {
  const std::optional<double> mid = median(values);
  if (values.size() < 2 || !mid || *mid <= 0) return std::nullopt;
  double worst = 0;
  for (const double x : values)
    worst = std::max(worst, std::fabs(std::log(std::clamp(x / *mid, 0.01, 100.0))));
  return worst;
}

std::optional<double> MetricComparison::ratio() const {
  if (!real || !sim) return std::nullopt;
  if (*real == 0) return *sim == 0 ? std::optional<double>(1.0) : std::nullopt;
  return *sim / *real;
}

std::string validation_unavailable() {
  if (geteuid() != 0) return "recording the kernel needs root";
  std::string why;
  if (find_tracefs("", true, &why).empty())
    return "tracefs is unavailable" + (why.empty() ? "" : " (" + why + ")");
  return "";
}

ValidationReport run_validation(const ValidateOptions& o,
                                const std::function<void(const std::string&)>& progress) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(o.suite_dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  if (ec) throw InputError(o.suite_dir, "", "cannot read the suite's folder: " + ec.message());
  if (files.empty()) throw InputError(o.suite_dir, "", "no scenario (*.json) in the suite");
  std::sort(files.begin(), files.end());
  return Validator(o, progress).run(files);
}

void summarise_validation(ValidationReport& r) {
  const size_t n = validation_metrics().size();
  r.median_abs_log.assign(n, std::nullopt);
  r.median_real_spread.assign(n, std::nullopt);
  r.compared.assign(n, 0);
  for (size_t m = 0; m < n; ++m) {
    // A ratio of 0 (the simulation saw none of it) counts as 1/100, and "sim only"
    // (the real run saw none) as 100, so that neither drops out of the median.
    std::vector<double> logs;
    for (const ScenarioComparison& s : r.scenarios) {
      if (!s.error.empty()) continue;
      const MetricComparison& c = s.metrics[m];
      std::optional<double> ratio = c.ratio();
      if (!ratio && c.real && c.sim && *c.real == 0) ratio = 100;
      if (ratio) logs.push_back(std::fabs(std::log(std::clamp(*ratio, 0.01, 100.0))));
    }
    r.compared[m] = static_cast<int>(logs.size());
    r.median_abs_log[m] = median(logs);
    std::vector<double> spreads;
    for (const ScenarioComparison& s : r.scenarios)
      if (s.error.empty() && s.metrics[m].real_spread) spreads.push_back(*s.metrics[m].real_spread);
    r.median_real_spread[m] = median(spreads);
  }
}

std::string validation_table(const ValidationReport& r) {
  const auto& metrics = validation_metrics();
  std::string out = fmt::format("{:<22}", "sim / real");
  for (const std::string& m : metrics) out += fmt::format(" {:>12}", m);
  out += "\n";
  for (const ScenarioComparison& s : r.scenarios) {
    const std::string name = s.name + (s.busy_runs > 0 ? " *" : "");
    out += fmt::format("{:<22}", name);
    if (!s.error.empty()) {
      out += " failed: " + s.error + "\n";
      continue;
    }
    for (const MetricComparison& c : s.metrics) out += fmt::format(" {:>12}", ratio_text(c));
    out += "\n";
  }
  out += fmt::format("{:<22}", "median |log ratio|");
  for (size_t m = 0; m < metrics.size(); ++m)
    out += fmt::format(" {:>12}", r.median_abs_log[m] ? fmt::format("{:.3f}", *r.median_abs_log[m])
                                                      : std::string("-"));
  out += "\n\nsummary:";
  for (size_t m = 0; m < metrics.size(); ++m) {
    if (!r.median_abs_log[m]) continue;
    const double typical = std::exp(*r.median_abs_log[m]) - 1;
    const double target = target_of(metrics[m]);
    const std::string judged =
        target == 0
            ? std::string()
            : fmt::format("{} {:.0f} %", typical <= target ? "within" : "outside", target * 100);
    const std::string noise =
        r.median_real_spread[m]
            ? fmt::format("real {:.0f} %", (std::exp(*r.median_real_spread[m]) - 1) * 100)
            : std::string();
    const std::string sep = !judged.empty() && !noise.empty() ? ", " : "";
    out += fmt::format(
        " {} {:.0f} %{};", metrics[m], typical * 100,
        judged.empty() && noise.empty() ? std::string() : " (" + judged + sep + noise + ")");
  }
  out += fmt::format(
      " (typical |sim/real - 1| over {} scenarios, {} repeats each; \"real\": how far "
      "the real repeats of a scenario stray from their median, typically)\n",
      r.scenarios.size(), r.repeats);
  out += fmt::format("simulated: {} on {}; real: Linux {}\n", r.policy, r.machine, r.kernel);
  if (r.loop_speed_max > 0)
    out += fmt::format("busy loop timed before each real run: {:.0f} to {:.0f} loops/us\n",
                       r.loop_speed_min, r.loop_speed_max);
  if (r.busy_runs > 0)
    out += fmt::format("* {} of {} real runs are unreliable ({}): those ratios are unreliable\n",
                       r.busy_runs, r.runs, unreliable_reasons(r));
  return out;
}

RunDoubts doubts_of_run(bool busy_before, double steal_share, double loops_per_us_before,
                        double loops_per_us_after) {
  RunDoubts d;
  d.busy_before = busy_before;
  d.stolen = steal_share > 0.05;
  d.drifted = loops_per_us_before > 0 && loops_per_us_after > 0 &&
              std::fabs(std::log(loops_per_us_after / loops_per_us_before)) > std::log(1.10);
  return d;
}

std::string unreliable_reasons(const ValidationReport& r) {
  std::vector<std::string> reasons;
  if (r.busy_before > 0)
    reasons.push_back(fmt::format("{} with other runnable tasks before", r.busy_before));
  if (r.stolen > 0)
    reasons.push_back(
        fmt::format("{} with over 5 % of the CPU time stolen by the hypervisor", r.stolen));
  if (r.drifted > 0)
    reasons.push_back(fmt::format(
        "{} with the busy loop's speed changed by over 10 % across the run", r.drifted));
  return fmt::format("{}", fmt::join(reasons, "; "));
}

std::string validation_json(const ValidationReport& r) {
  using nlohmann::ordered_json;
  auto opt = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(); };
  ordered_json j;
  j["machine"] = utf8_or_escaped(r.machine);
  j["policy"] = r.policy;
  j["kernel"] = r.kernel;
  j["repeats"] = r.repeats;
  j["runs"] = r.runs;
  j["busy_runs"] = r.busy_runs;
  j["unreliable"] = {{"busy_before", r.busy_before}, {"stolen", r.stolen}, {"drifted", r.drifted}};
  j["busy_loop_loops_per_us"] = {{"min", r.loop_speed_min}, {"max", r.loop_speed_max}};
  ordered_json scenarios = ordered_json::array();
  for (const ScenarioComparison& s : r.scenarios) {
    ordered_json sj;
    sj["name"] = utf8_or_escaped(s.name);
    sj["busy_runs"] = s.busy_runs;
    if (!s.error.empty()) sj["error"] = utf8_or_escaped(s.error);
    ordered_json mj;
    for (size_t m = 0; m < s.metrics.size(); ++m) {
      const MetricComparison& c = s.metrics[m];
      ordered_json cj{{"real", opt(c.real)},
                      {"sim", opt(c.sim)},
                      {"ratio", opt(c.ratio())},
                      {"real_spread", opt(c.real_spread)}};
      if (!c.detail.empty()) cj["task"] = utf8_or_escaped(c.detail);
      mj[validation_metrics()[m]] = cj;
    }
    sj["metrics"] = mj;
    scenarios.push_back(sj);
  }
  j["scenarios"] = scenarios;
  ordered_json summary;
  for (size_t m = 0; m < validation_metrics().size(); ++m)
    summary[validation_metrics()[m]] =
        ordered_json{{"median_abs_log_ratio", opt(r.median_abs_log[m])},
                     {"median_real_spread", opt(r.median_real_spread[m])},
                     {"scenarios", r.compared[m]}};
  j["summary"] = summary;
  return j.dump(2) + "\n";
}

}  // namespace schedlab
