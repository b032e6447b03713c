// `schedlab merge`: join sweep CSV files (the shards of one sweep) into one.
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "experiment/results.h"

namespace schedlab {

namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string out;
};

int merge(const MergeArgs& a) {
  std::vector<std::pair<std::string, ResultTable>> parts;
  for (const std::string& f : a.inputs) parts.emplace_back(f, read_results_csv(f));
  write_output(a.out, results_csv(merge_results(parts)));
  return 0;
}

}  // namespace

Command add_merge(CLI::App& parent) {
  auto a = std::make_shared<MergeArgs>();
  CLI::App* cmd = parent.add_subcommand("merge", "join sweep CSV files (shards) into one");
  cmd->add_option("inputs", a->inputs, "CSV files")->required();
  cmd->add_option("--out", a->out, "output CSV")->required();
  return {cmd, [a](std::ostream&, std::ostream&) { return merge(*a); }};
}

}  // namespace schedlab
