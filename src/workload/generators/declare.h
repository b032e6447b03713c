// How a generator file declares itself: its parameters (one SCHEDLAB_DECLARE_PARAMS list),
// an optional check across parameters, and the function that turns the parameters into
// tasks. `declare` gives the registry row; parsing, the machine check of CPU lists and
// the listing all follow from the declaration.
#pragma once

#include <fmt/format.h>

#include <string>

#include "workload/generators/generators.h"

namespace schedlab::gen {

template <class P>
using Validate = void (*)(const P&, const GeneratorContext&);
template <class P>
using Generate = void (*)(const P&, const GeneratorContext&, Workload&);

// A reason against parameter `member` of P, at its key (e.g. "workload.ops"); naming it by
// its member makes a misspelt name fail to compile.
template <class P, class M>
[[noreturn]] void reject(const GeneratorContext& ctx, M P::*member, const std::string& reason) {
  ctx.reader.fail(ctx.key + "." + P::table().name_of(member), reason);
}

// The registry row of a generator. Its parameters are read in file order (a repeated key:
// the last wins), every key but "generator" must be declared, then `validate` runs.
template <class P>
GeneratorInfo declare(const char* name, const char* description, Generate<P> generate,
                      Validate<P> validate = nullptr) {
  GeneratorInfo g{name, description, P::table().rows(P{}), {}};
  const std::string where = fmt::format("generator '{}'", name);
  g.generate = [where, generate, validate](const JValue& spec, const GeneratorContext& ctx,
                                           Workload& w) {
    const params::Target at{ctx.reader.file(), ctx.key, where};
    P p;
    P::table().set_object(p, spec, at, {"generator"});
    P::table().check_cpu_lists(p, at, ctx.machine.cpus);
    if (validate) validate(p, ctx);
    generate(p, ctx, w);
  };
  return g;
}

}  // namespace schedlab::gen
