// A scenario: machine + workload + scheduler + seed, read from one JSON file that is
// rt-app's format with a few optional sections added ("machine", "scheduler", "seed",
// "workload"). A plain rt-app file is a valid scenario.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "json/jtree.h"
#include "machine/machine.h"
#include "workload/program.h"

namespace schedlab {

struct Scenario {
  std::string file;
  JValue raw;  // the file as read, after --set edits
  Machine machine;
  Workload workload;
  std::string policy = "rr";
  std::vector<std::pair<std::string, std::string>> params;  // in the order they apply
  uint64_t seed = 1;
  std::optional<Time> duration_ns;  // absent: until every task exits
  JsonLeniency leniency;
  // Set when the policy is ScenarioOverrides::default_policy: why it was chosen.
  std::string policy_note;
  // For the user: what was accepted without effect (see RtAppGlobal::notes).
  std::vector<std::string> notes;
  std::string generator;  // the one generator of "workload" ("" for none, or a list)
};

// Command-line changes, applied on top of the file.
struct ScenarioOverrides {
  // JSON pointer, value. A pointer into /tasks/ must name a task of the file...
  std::vector<std::pair<std::string, std::string>> sets;
  // ... unless it comes here (--set-new): applied first, it may add tasks.
  std::vector<std::pair<std::string, std::string>> new_sets;
  std::optional<int> cpus;
  std::optional<std::string> policy;
  // The policy when neither `policy` nor the file names one (a plain rt-app file), and
  // why (the CLI: the model of the host's kernel); without it, "rr".
  std::optional<std::string> default_policy;
  std::string default_policy_reason;
  std::vector<std::pair<std::string, std::string>> params;
  std::optional<uint64_t> seed;
  std::optional<double> duration_s;
};

Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides = {});
Scenario scenario_from_text(const std::string& text, const std::string& name,
                            const ScenarioOverrides& overrides = {});

int host_cpu_count();

}  // namespace schedlab
