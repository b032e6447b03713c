#include "workload/generators/generators.h"

#include <fmt/format.h>

namespace schedlab {

std::vector<int> read_generator_cpus(const GeneratorContext& ctx, const JValue& v,
                                     const std::string& key) {
  std::vector<int> cpus = ctx.reader.int_list(v, key);
  for (int c : cpus)
    if (c < 0 || c >= ctx.machine.cpus)
      ctx.reader.fail(key,
                      fmt::format("CPU {} is outside the machine's {} CPUs", c, ctx.machine.cpus));
  return cpus;
}

namespace {
struct Entry {
  const char* name;
  void (*generate)(const JValue&, const GeneratorContext&, Workload&);
};
const Entry kGenerators[] = {{"x264", generate_x264},
                             {"tbench", generate_tbench},
                             {"hackbench", generate_hackbench},
                             {"oltp", generate_oltp},
                             {"kbuild", generate_kbuild},
                             {"messaging", generate_messaging},
                             {"schbench", generate_schbench},
                             {"pert", generate_pert},
                             {"konsole", generate_konsole},
                             {"glitch1", generate_glitch1},
                             {"mediaplayer", generate_mediaplayer}};
}  // namespace

std::vector<std::string> generator_names() {
  std::vector<std::string> names;
  for (const Entry& e : kGenerators) names.emplace_back(e.name);
  return names;
}

void generate_workload(const JValue& spec, const GeneratorContext& ctx, Workload& out) {
  const JsonReader& r = ctx.reader;
  r.expect_object(spec, ctx.key);
  const std::string name = r.string(r.required(spec, ctx.key, "generator"), ctx.key + ".generator");
  for (const Entry& e : kGenerators)
    if (name == e.name) return e.generate(spec, ctx, out);
  std::string known;
  for (const Entry& e : kGenerators) known += (known.empty() ? "" : ", ") + std::string(e.name);
  r.fail(ctx.key + ".generator", "unknown generator '" + name + "' (known: " + known + ")");
}

}  // namespace schedlab
