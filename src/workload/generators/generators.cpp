#include "workload/generators/generators.h"

#include <fmt/format.h>

namespace schedlab {

// The registry: one line per generator, in listing order. Each names the function
// `GeneratorInfo <name>_generator()` that the generator's own file defines with
// gen::declare (workload/generators/declare.h).
#define SCHEDLAB_GENERATORS(X) \
  X(x264)                      \
  X(tbench)                    \
  X(hackbench)                 \
  X(oltp)                      \
  X(kbuild)                    \
  X(messaging)                 \
  X(volanomark)                \
  X(schbench)                  \
  X(pert)                      \
  X(konsole)                   \
  X(glitch1)                   \
  X(mediaplayer)

#define SCHEDLAB_GENERATOR_DECLARE_(name) GeneratorInfo name##_generator();
SCHEDLAB_GENERATORS(SCHEDLAB_GENERATOR_DECLARE_)

const std::vector<GeneratorInfo>& generator_registry() {
#define SCHEDLAB_GENERATOR_ROW_(name) name##_generator(),
  static const std::vector<GeneratorInfo> registry = {SCHEDLAB_GENERATORS(SCHEDLAB_GENERATOR_ROW_)};
  return registry;
}

std::vector<std::string> generator_names() {
  std::vector<std::string> names;
  for (const GeneratorInfo& g : generator_registry()) names.push_back(g.name);
  return names;
}

void generate_workload(const JValue& spec, const GeneratorContext& ctx, Workload& out) {
  const JsonReader& r = ctx.reader;
  r.expect_object(spec, ctx.key);
  const std::string name = r.string(r.required(spec, ctx.key, "generator"), ctx.key + ".generator");
  for (const GeneratorInfo& g : generator_registry())
    if (name == g.name) return g.generate(spec, ctx, out);
  std::string known;
  for (const GeneratorInfo& g : generator_registry()) known += (known.empty() ? "" : ", ") + g.name;
  r.fail(ctx.key + ".generator", "unknown generator '" + name + "' (known: " + known + ")");
}

// As `schedlab policies`: the generator and its line, then per parameter its name, default,
// type, meaning and [source].
std::string format_generator_list() {
  std::string out;
  for (const GeneratorInfo& g : generator_registry()) {
    out += fmt::format("{:<14} {}\n", g.name, g.description);
    for (const params::Row& p : g.params) {
      const std::string type = p.type.rfind("std::", 0) == 0 ? p.type.substr(5) : p.type;
      out += fmt::format("    {:<34} {:>12}  {:<8} {} [{}]\n", p.name, p.value, type, p.effect,
                         p.since);
    }
  }
  return out;
}

}  // namespace schedlab
