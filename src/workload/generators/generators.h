// Workload generators: `"workload": {"generator": "x264", ...}` in a scenario turns
// parameters into workload programs (several generators: an array of such objects).
// Every generator is one row of the registry: its name, one line on what it models, its
// parameters (declared once, params/declared.h) and the function that generates.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "json/jread.h"
#include "machine/machine.h"
#include "params/declared.h"
#include "workload/program.h"

namespace schedlab {

struct GeneratorContext {
  const JsonReader& reader;
  const Machine& machine;
  uint64_t seed;    // the scenario's seed, for per-run variation (cost jitter)
  std::string key;  // where the parameters are in the file, e.g. "workload"
};

struct GeneratorInfo {
  std::string name;
  std::string description;          // one line
  std::vector<params::Row> params;  // every parameter with its default, in order
  // Reads the parameters of `spec` (the "generator" key aside) and appends the tasks.
  std::function<void(const JValue& spec, const GeneratorContext&, Workload&)> generate;
};

// Every generator, in the order `schedlab generators` lists them.
const std::vector<GeneratorInfo>& generator_registry();

// Appends the generated tasks to `out`; errors name the key and the reason.
void generate_workload(const JValue& spec, const GeneratorContext& ctx, Workload& out);

std::vector<std::string> generator_names();

// Every generator and its parameters (name, default, type, meaning, source) as text, in
// the layout of `schedlab policies`.
std::string format_generator_list();

// x264's mv_range_thread lag in macroblock rows for a height, thread count and me_range.
int x264_row_lag(int height, int threads, int me_range);

}  // namespace schedlab
