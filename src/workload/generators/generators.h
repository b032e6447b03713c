// Workload generators: `"workload": {"generator": "x264", ...}` in a scenario turns
// parameters into workload programs (several generators: an array of such objects).
#pragma once

#include <string>
#include <vector>

#include "json/jread.h"
#include "machine/machine.h"
#include "workload/program.h"

namespace schedlab {

struct GeneratorContext {
  const JsonReader& reader;
  const Machine& machine;
  uint64_t seed;    // the scenario's seed, for per-run variation (cost jitter)
  std::string key;  // where the parameters are in the file, e.g. "workload"
};

// Appends the generated tasks to `out`; errors name the key and the reason.
void generate_workload(const JValue& spec, const GeneratorContext& ctx, Workload& out);

std::vector<std::string> generator_names();

// One generator each (src/workload/generators/<name>.cpp).
void generate_x264(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_tbench(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_hackbench(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_oltp(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_kbuild(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_messaging(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_schbench(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_pert(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_konsole(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_glitch1(const JValue& spec, const GeneratorContext& ctx, Workload& out);
void generate_mediaplayer(const JValue& spec, const GeneratorContext& ctx, Workload& out);

// A generator's `cpus`-style key: a list of CPUs of the machine (errors name the key).
std::vector<int> read_generator_cpus(const GeneratorContext& ctx, const JValue& v,
                                     const std::string& key);

// x264's mv_range_thread lag in macroblock rows for a height, thread count and me_range.
int x264_row_lag(int height, int threads, int me_range);

}  // namespace schedlab
