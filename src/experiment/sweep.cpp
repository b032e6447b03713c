#include "experiment/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/analyzer.h"
#include "experiment/metric_labels.h"
#include "policy/registry.h"
#include "report/json_text.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "util/error.h"
#include "util/limits.h"

namespace schedlab {

std::string Axis::name() const {
  const auto slash = pointer.rfind('/');
  return slash == std::string::npos ? pointer : pointer.substr(slash + 1);
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto at = s.find(sep, start);
    parts.push_back(s.substr(start, at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

std::optional<int64_t> to_int(const std::string& s) {
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

Axis parse_axis(const std::string& text) {
  const std::string key = "--vary " + text;
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || text[0] != '/')
    throw InputError("", key, "expected /json/pointer=values (1..8, 1..16:2 or a,b,c)");
  Axis a;
  a.pointer = text.substr(0, eq);
  const std::string values = text.substr(eq + 1);
  if (values.empty()) throw InputError("", key, "an empty list of values");
  // a range starts with an integer: a list's value may hold ".." (a machine file's path)
  const auto dots = values.find("..");
  if (dots != std::string::npos && to_int(values.substr(0, dots))) {
    std::string hi_text = values.substr(dots + 2), step_text = "1";
    if (const auto colon = hi_text.find(':'); colon != std::string::npos) {
      step_text = hi_text.substr(colon + 1);
      hi_text = hi_text.substr(0, colon);
    }
    const auto lo = to_int(values.substr(0, dots)), hi = to_int(hi_text), step = to_int(step_text);
    if (!lo || !hi || !step || *step <= 0)
      throw InputError("", key, "a range is lo..hi or lo..hi:step with integers, step > 0");
    if (*hi < *lo) throw InputError("", key, fmt::format("an empty range ({} > {})", *lo, *hi));
    if ((*hi - *lo) / *step >= 100000) throw InputError("", key, "more than 100000 values");
    for (int64_t v = *lo; v <= *hi; v += *step) a.values.push_back(std::to_string(v));
    return a;
  }
  for (const std::string& v : split(values, ','))
    if (v.empty())
      throw InputError("", key, "an empty value in the list");
    else
      a.values.push_back(v);
  return a;
}

PolicySpec parse_policy_spec(const std::string& text) {
  PolicySpec p;
  p.label = text;
  const std::vector<std::string> parts = split(text, ':');
  p.policy = parts[0];
  if (p.policy.empty()) throw InputError("", "--policy " + text, "an empty policy name");
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", "--policy " + text, "parameters are written :name=value");
    p.params.emplace_back(parts[i].substr(0, eq), parts[i].substr(eq + 1));
  }
  return p;
}

std::string describe_parameters(const PolicySpec& p,
                                const std::vector<std::pair<std::string, std::string>>& extra) {
  for (const PolicyInfo& info : policy_registry()) {
    if (info.name != p.policy) continue;
    std::map<std::string, std::string> values;
    for (const params::Row& s : info.params) values[s.name] = s.value;
    for (const auto& [k, v] : extra) values[k] = v;
    for (const auto& [k, v] : p.params) values[k] = v;
    std::string line = p.label + ":";
    for (const params::Row& s : info.params)
      line.append(" ").append(s.name).append("=").append(values[s.name]);
    return line;
  }
  return p.label + ": (unknown policy)";
}

uint64_t derive_seed(const std::string& scenario_name, const std::vector<std::string>& point,
                     int repeat) {
  // FNV-1a over the parts, then a splitmix finaliser; never 0.
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    h = (h ^ 0xff) * 0x100000001b3ULL;
  };
  mix(scenario_name);
  for (const std::string& v : point) mix(v);
  mix(std::to_string(repeat));
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return (h & 0x7fffffffffffffffULL) | 1;
}

namespace {

// a * b, or UINT64_MAX when that overflows.
uint64_t saturating_product(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

// The run count is checked before anything is expanded: a few axes of 100,000 values
// would otherwise fill the memory with keys.
void check_run_count(const SweepSpec& spec) {
  uint64_t points = 1;
  std::string shape;
  for (const Axis& a : spec.axes) {
    points = saturating_product(points, a.values.size());
    shape += fmt::format("{}{}", shape.empty() ? "" : " x ", a.values.size());
  }
  const uint64_t runs = saturating_product(saturating_product(points, spec.policies.size()),
                                           static_cast<uint64_t>(spec.repeat));
  if (runs <= kMaxSweepRuns) return;
  throw InputError(
      "", "--vary",
      fmt::format("{} runs ({} points{}, {} schedulers, {} repeats) is more than the limit of {}",
                  runs == UINT64_MAX ? "more than 2^64" : std::to_string(runs),
                  points == UINT64_MAX ? "more than 2^64" : std::to_string(points),
                  shape.empty() ? "" : " = " + shape, spec.policies.size(), spec.repeat,
                  kMaxSweepRuns));
}

}  // namespace

std::vector<RunKey> expand(const SweepSpec& spec, const std::string& scenario_name) {
  check_run_count(spec);
  std::vector<std::vector<std::string>> points{{}};
  for (const Axis& a : spec.axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& p : points)
      for (const std::string& v : a.values) {
        auto q = p;
        q.push_back(v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  std::vector<RunKey> keys;
  for (const auto& point : points)
    for (const PolicySpec& policy : spec.policies)
      for (int r = 0; r < spec.repeat; ++r)
        keys.push_back(RunKey{policy.label, point, r, derive_seed(scenario_name, point, r)});
  return keys;
}

namespace {

std::string scenario_name_of(const std::string& file) {
  return std::filesystem::path(file).stem().string();
}

ScenarioOverrides overrides_for(const SweepSpec& spec, const RunKey& key) {
  ScenarioOverrides o;
  o.sets = spec.sets;
  o.new_sets = spec.new_sets;
  for (std::size_t i = 0; i < spec.axes.size(); ++i)
    o.sets.emplace_back(spec.axes[i].pointer, key.point[i]);
  const PolicySpec* policy = nullptr;
  for (const PolicySpec& p : spec.policies)
    if (p.label == key.policy) policy = &p;
  o.policy = policy->policy;
  o.params = spec.params;
  for (const auto& p : policy->params) o.params.push_back(p);
  o.seed = key.seed;
  return o;
}

}  // namespace

Scenario load_run_scenario(const SweepSpec& spec, const RunKey& key) {
  return load_scenario(spec.scenario, overrides_for(spec, key));
}

std::vector<std::string> metric_columns(const SweepSpec& spec) {
  ScenarioOverrides o;
  o.sets = spec.sets;
  o.new_sets = spec.new_sets;
  const Scenario s = load_scenario(spec.scenario, o);
  std::vector<std::string> cols = {"duration_s", "context_switches", "migrations", "jain_fairness",
                                   "lock_holder_preemptions"};
  for (const std::string& m : s.workload.marks.names) {
    cols.push_back("marks." + m + ".count");
    cols.push_back("marks." + m + ".per_second");
    if (counts_bytes(m)) cols.push_back("marks." + m + ".mb_per_second");
    cols.push_back("marks." + m + ".first_ms");
    cols.push_back("marks." + m + ".interval_p95_ms");
  }
  cols.push_back("wall_seconds");
  return cols;
}

void run_sweep(const SweepSpec& spec, const std::function<void(const RunRow&)>& on_row,
               const std::function<void(std::size_t, std::size_t)>& progress) {
  run_sweeps(
      {spec}, [&](std::size_t, const RunRow& row) { on_row(row); }, progress);
}

namespace {

struct Job {
  std::size_t spec;
  RunKey key;
  std::size_t index;
};

// Every policy and axis checked once, before spending time (errors name the key), and the
// sweep's runs (its shard's share) appended to `jobs`.
void add_jobs(const SweepSpec& spec, std::size_t si, std::vector<Job>& jobs) {
  if (spec.policies.empty()) throw InputError("", "--policy", "no policy to run");
  if (spec.repeat < 1) throw InputError("", "--repeat", "must be at least 1");
  check_run_count(spec);
  for (const PolicySpec& p : spec.policies) {
    RunKey probe{p.label, {}, 0, 1};
    for (const Axis& a : spec.axes) probe.point.push_back(a.values.front());
    const Scenario s = load_scenario(spec.scenario, overrides_for(spec, probe));
    make_policy(s.policy, s.params, s.file);
  }
  const std::vector<RunKey> keys = expand(spec, scenario_name_of(spec.scenario));
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!spec.shard || static_cast<int>(i % spec.shard->second) == spec.shard->first - 1)
      jobs.push_back(Job{si, keys[i], i});
}

// One run simulated and measured: its row of metric columns.
RunRow run_one(const SweepSpec& spec, const Job& job) {
  const auto start = std::chrono::steady_clock::now();
  const Scenario s = load_run_scenario(spec, job.key);
  Analyzer analyzer;
  in_scenario(s.file, [&] { return simulate(s, analyzer, SimulationOptions{}); });
  const Metrics& m = analyzer.metrics();
  RunRow row;
  row.key = job.key;
  row.index = job.index;
  const double secs = static_cast<double>(m.duration_ns) / 1e9;
  row.values["duration_s"] = secs;
  row.values["context_switches"] = static_cast<double>(m.context_switches);
  row.values["migrations"] = static_cast<double>(m.migrations);
  row.values["jain_fairness"] = m.jain_fairness;
  row.values["lock_holder_preemptions"] = static_cast<double>(m.lock_holder_preemptions);
  for (const std::string& mark : s.workload.marks.names) {
    const auto it = m.marks.find(mark);
    const double count = it == m.marks.end() ? 0 : static_cast<double>(it->second.count);
    row.values["marks." + mark + ".count"] = count;
    row.values["marks." + mark + ".per_second"] = secs > 0 ? count / secs : 0;
    if (counts_bytes(mark))
      row.values["marks." + mark + ".mb_per_second"] = secs > 0 ? count / secs / 1e6 : 0;
    // When the first one happened (start-up times); empty when there was none.
    if (count > 0)
      row.values["marks." + mark + ".first_ms"] = static_cast<double>(it->second.first_ns) / 1e6;
    if (count > 0 && it->second.interval.count() > 0)
      row.values["marks." + mark + ".interval_p95_ms"] =
          static_cast<double>(it->second.interval.percentile(0.95)) / 1e6;
  }
  row.values["wall_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return row;
}

}  // namespace

void run_sweeps(const std::vector<SweepSpec>& specs,
                const std::function<void(std::size_t, const RunRow&)>& on_row,
                const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<Job> jobs_list;
  int jobs = 0;
  for (std::size_t si = 0; si < specs.size(); ++si) {
    add_jobs(specs[si], si, jobs_list);
    jobs = std::max(jobs, specs[si].jobs);
  }
  if (jobs == 0) jobs = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // Later sweeps first: callers list the cheap parts of an experiment first, and starting
  // the expensive ones early keeps the workers busy to the end.
  std::stable_sort(jobs_list.begin(), jobs_list.end(),
                   [](const Job& a, const Job& b) { return a.spec > b.spec; });
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex mutex;
  std::exception_ptr failure;
  auto worker = [&] {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= jobs_list.size()) return;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (failure) return;
      }
      try {
        const RunRow row = run_one(specs[jobs_list[k].spec], jobs_list[k]);
        std::lock_guard<std::mutex> lock(mutex);
        on_row(jobs_list[k].spec, row);
        const std::size_t n = ++done;
        if (progress) progress(n, jobs_list.size());
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < std::min<int>(jobs, static_cast<int>(jobs_list.size())); ++i)
    threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

std::string csv_header(const SweepSpec& spec, const std::vector<std::string>& metrics) {
  std::string h = "scenario,policy";
  for (const Axis& a : spec.axes) h.append(",").append(a.name());
  h.append(",repeat,seed");
  for (const std::string& m : metrics) h.append(",").append(m);
  h.append("\n");
  return h;
}

std::string csv_row(const SweepSpec& spec, const std::vector<std::string>& metrics,
                    const RunRow& row) {
  std::string line = scenario_name_of(spec.scenario);
  line.append(",").append(row.key.policy);
  for (const std::string& v : row.key.point) line.append(",").append(v);
  line.append(fmt::format(",{},{}", row.key.repeat, row.key.seed));
  for (const std::string& m : metrics) {
    const auto it = row.values.find(m);
    line.append(",");
    if (it != row.values.end()) line.append(fmt::format("{:.10g}", it->second));
  }
  line.append("\n");
  return line;
}

std::string json_row(const SweepSpec& spec, const RunRow& row) {
  using nlohmann::json;
  std::vector<std::pair<std::string, json>> members = {{"policy", utf8_or_escaped(row.key.policy)},
                                                       {"repeat", row.key.repeat},
                                                       {"seed", row.key.seed}};
  for (std::size_t i = 0; i < spec.axes.size(); ++i)
    members.emplace_back(spec.axes[i].name(), utf8_or_escaped(row.key.point[i]));
  for (const auto& [k, v] : row.values)
    members.emplace_back(k, std::isfinite(v) ? json::parse(fmt::format("{:.10g}", v)) : json());
  // One line per run with ", " and ": " between members (nlohmann's own compact dump
  // has no spaces), each key and value dumped by the library.
  std::string line = "{";
  for (std::size_t i = 0; i < members.size(); ++i)
    line += (i ? ", " : "") + json_string(members[i].first) + ": " + members[i].second.dump();
  return line + "}";
}

}  // namespace schedlab
