// Sweeps: one scenario run at every point of some varied values, under several
// schedulers, several times. Seeds come from (scenario, point, repeat), never from the
// order of execution, so results do not depend on --jobs; points run in parallel.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario.h"

namespace schedlab {

// A varied value: a JSON pointer in the scenario and the values it takes.
struct Axis {
  std::string pointer;
  std::vector<std::string> values;
  std::string name() const;  // the last pointer component ("threads")
};

// "/workload/threads=1..8", "=1..16:2" or "=a,b,c".
Axis parse_axis(const std::string& text);

// A scheduler to compare: a policy name with optional parameters, written
// "cfs-2.6.32" or "cfs-2.6.32:START_DEBIT=0:sched_latency_ns=4000000".
struct PolicySpec {
  std::string label;  // as written
  std::string policy;
  std::vector<std::pair<std::string, std::string>> params;
};
PolicySpec parse_policy_spec(const std::string& text);

// "label: name=value name=value ..." for every parameter of the policy, defaults included,
// with `extra` (the sweep's --param values) and the spec's own applied in that order.
std::string describe_parameters(const PolicySpec& p,
                                const std::vector<std::pair<std::string, std::string>>& extra);

struct SweepSpec {
  std::string scenario;  // file
  std::vector<PolicySpec> policies;
  std::vector<Axis> axes;
  std::vector<std::pair<std::string, std::string>> params;    // for every policy
  std::vector<std::pair<std::string, std::string>> sets;      // fixed edits
  std::vector<std::pair<std::string, std::string>> new_sets;  // fixed edits adding tasks
  int repeat = 1;
  int jobs = 0;                              // 0: every core
  std::optional<std::pair<int, int>> shard;  // K of N (1-based K)
};

struct RunKey {
  std::string policy;              // label
  std::vector<std::string> point;  // one value per axis
  int repeat = 0;
  uint64_t seed = 0;
};

// One finished run: its key and its metrics by column name.
struct RunRow {
  RunKey key;
  std::map<std::string, double> values;
  std::size_t index = 0;  // position in the full expansion (stable order)
};

// Every run of the sweep in a stable order (points, then policies, then repeats).
std::vector<RunKey> expand(const SweepSpec& spec, const std::string& scenario_name);

// The seed of a run: a hash of the scenario name, the point and the repeat.
uint64_t derive_seed(const std::string& scenario_name, const std::vector<std::string>& point,
                     int repeat);

// The scenario of one run of the sweep, as run_sweep loads it.
Scenario load_run_scenario(const SweepSpec& spec, const RunKey& key);

// The metric columns a scenario's runs report, in order. Wall-clock columns start "wall".
std::vector<std::string> metric_columns(const SweepSpec& spec);

// Runs the sweep (the shard's share of it), calling on_row as each run finishes
// (serialised). Throws InputError for bad axes, policies or metrics.
void run_sweep(const SweepSpec& spec, const std::function<void(const RunRow&)>& on_row,
               const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// Several sweeps through one pool of workers (the parts of an experiment); on_row gets
// the index of the sweep the row belongs to.
void run_sweeps(const std::vector<SweepSpec>& specs,
                const std::function<void(std::size_t spec, const RunRow&)>& on_row,
                const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// CSV: header then rows; rows can be written as they come.
std::string csv_header(const SweepSpec& spec, const std::vector<std::string>& metrics);
std::string csv_row(const SweepSpec& spec, const std::vector<std::string>& metrics,
                    const RunRow& row);

// One run as a JSON object on one line: {"policy": ..., "repeat": ..., "seed": ..., the
// axis values as strings, then the metrics (10 significant digits, as in the CSV;
// null when not finite)}. Written through nlohmann-json, so names are escaped.
std::string json_row(const SweepSpec& spec, const RunRow& row);

}  // namespace schedlab
