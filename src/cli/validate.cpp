// `schedlab validate [--quick]`: the suite of scenarios/validate/ run for real and in
// simulation on the model of this machine (experiment/validate.h), as a table of sim/real
// ratios per metric with a summary line, or --json. Where the kernel cannot be recorded
// (not root, no tracefs) it says why and skips; runs that began on a busy machine are
// marked, and --quiet-only refuses to report them.
#include "experiment/validate.h"

#include <filesystem>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "experiment/reproduce.h"

namespace schedlab {

namespace {

struct ValidateArgs {
  ValidateOptions options;
  bool quick = false, json = false, quiet_only = false;
};

int validate(ValidateArgs a, std::ostream& out, std::ostream& err) {
  if (const std::string why = validation_unavailable(); !why.empty()) {
    err << "schedlab: validate: skipped: " << why << "\n";
    return 0;
  }
  ValidateOptions& o = a.options;
  if (o.suite_dir.empty())
    o.suite_dir = (std::filesystem::path(default_scenarios_dir()) / "validate").string();
  if (a.quick && o.duration_s == 0) o.duration_s = 1;
  const ValidationReport r = run_validation(
      o, [&err](const std::string& what) { err << "schedlab: validate: " << what << "\n"; });
  if (a.quiet_only && r.busy_runs > 0) {
    err << "schedlab: validate: " << r.busy_runs << " of " << r.runs
        << " real runs are unreliable (" << unreliable_reasons(r)
        << "); no report (--quiet-only)\n";
    return 1;
  }
  out << (a.json ? validation_json(r) : validation_table(r));
  return 0;
}

}  // namespace

Command add_validate(CLI::App& parent) {
  auto a = std::make_shared<ValidateArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "validate", "the validation suite for real and simulated on this machine's model (root)");
  cmd->add_flag("--quick", a->quick, "1 s per run instead of each scenario's 3 s");
  cmd->add_option("--repeats", a->options.repeats, "runs of each scenario on each side (3)")
      ->transform(integer_in(1, 100));
  cmd->add_option("--duration", a->options.duration_s, "seconds per run (overrides --quick)")
      ->check(seconds_in(kMaxDurationSeconds));
  cmd->add_option("--machine", a->options.machine_file,
                  "machine file to simulate on (default: the one `schedlab calibrate` cached)");
  cmd->add_flag("--uncalibrated", a->options.uncalibrated,
                "simulate on this host's topology and HZ alone, without costs");
  cmd->add_option("--policy", a->options.policy,
                  "simulated scheduler (default: the model of the running kernel)");
  cmd->add_option("--suite", a->options.suite_dir, "folder of scenarios (scenarios/validate)");
  cmd->add_flag("--json", a->json, "print the comparison as JSON");
  cmd->add_flag("--quiet-only", a->quiet_only,
                "refuse to report when the machine was busy before any real run");
  return {cmd, [a](std::ostream& out, std::ostream& err) { return validate(*a, out, err); }};
}

}  // namespace schedlab
