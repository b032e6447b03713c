// The registry's policies as declared: every parameter listed with its release and
// effect, each preset a row of its release's defaults offering only its release's
// switches, and the classes the registry builds from name=value text.
#include "policy/registry.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "util/error.h"

namespace schedlab {
namespace {

const PolicyInfo& info(const std::string& name) {
  for (const PolicyInfo& p : policy_registry())
    if (p.name == name) return p;
  throw std::logic_error("no policy " + name);
}

// name -> default, as listed.
std::map<std::string, std::string> defaults(const std::string& policy) {
  std::map<std::string, std::string> d;
  for (const params::Row& r : info(policy).params) d[r.name] = r.value;
  return d;
}

std::string refusal(const std::string& policy, const std::string& name, const std::string& value) {
  try {
    make_policy(policy, {{name, value}}, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Registry, EveryParameterIsListedWithItsTypeReleaseAndEffect) {
  for (const PolicyInfo& p : policy_registry()) {
    EXPECT_FALSE(p.description.empty()) << p.name;
    for (const params::Row& r : p.params) {
      EXPECT_FALSE(r.type.empty()) << p.name << " " << r.name;
      EXPECT_FALSE(r.since.empty()) << p.name << " " << r.name;
      EXPECT_FALSE(r.effect.empty()) << p.name << " " << r.name;
      if (r.type == "bool") {
        EXPECT_TRUE(r.value == "0" || r.value == "1") << r.name;
      }
    }
  }
}

// A switch a release lacks is not offered by its preset; the two presets' defaults are
// their releases' (sched_latency 20 ms and 5 ms, NEWIDLE balancing off and on).
TEST(Registry, EachCfsPresetOffersItsReleasesSwitchesWithItsDefaults) {
  const auto d31 = defaults("cfs-2.6.31"), d32 = defaults("cfs-2.6.32");
  EXPECT_EQ(d31.count("NEW_FAIR_SLEEPERS"), 1u);
  EXPECT_EQ(d31.count("FAIR_SLEEPERS"), 0u);
  EXPECT_EQ(d31.count("SD_WAKE_BALANCE"), 1u);
  EXPECT_EQ(d32.count("NEW_FAIR_SLEEPERS"), 0u);
  EXPECT_EQ(d32.count("GENTLE_FAIR_SLEEPERS"), 1u);
  EXPECT_EQ(d32.count("SD_PREFER_SIBLING"), 1u);
  EXPECT_EQ(d31.at("sched_latency_ns"), "20000000");
  EXPECT_EQ(d32.at("sched_latency_ns"), "5000000");
  EXPECT_EQ(d31.at("SD_BALANCE_NEWIDLE"), "0");
  EXPECT_EQ(d32.at("SD_BALANCE_NEWIDLE"), "1");
  EXPECT_EQ(d31.at("sched_child_runs_first"), "1");
  EXPECT_EQ(d32.at("sched_child_runs_first"), "0");
  // Each release in its own sched_features.h order.
  EXPECT_EQ(info("cfs-2.6.31").params.front().name, "NEW_FAIR_SLEEPERS");
  EXPECT_EQ(info("cfs-2.6.32").params.front().name, "FAIR_SLEEPERS");
  EXPECT_EQ(info("cfs-2.6.31").params[3].name, "WAKEUP_PREEMPT");
  EXPECT_EQ(info("cfs-2.6.32").params[4].name, "WAKEUP_PREEMPT");
  EXPECT_NE(refusal("cfs-2.6.32", "NEW_FAIR_SLEEPERS", "0")
                .find("s.json: --param NEW_FAIR_SLEEPERS: unknown parameter for policy "
                      "'cfs-2.6.32' (it has: FAIR_SLEEPERS, GENTLE_FAIR_SLEEPERS,"),
            std::string::npos);
  EXPECT_NE(refusal("cfs-2.6.31", "NEXT_BUDDY", "1").find("unknown parameter"), std::string::npos);
}

TEST(Registry, EachEevdfPresetOffersItsReleasesSwitches) {
  const auto d66 = defaults("eevdf-6.6"), d612 = defaults("eevdf-6.12");
  for (const char* only_612 :
       {"PLACE_REL_DEADLINE", "PREEMPT_SHORT", "DELAY_DEQUEUE", "DELAY_ZERO"}) {
    EXPECT_EQ(d66.count(only_612), 0u) << only_612;
    EXPECT_EQ(d612.at(only_612), "1") << only_612;
  }
  for (const char* only_66 : {"SIS_PROP", "UTIL_EST_FASTUP", "HZ_BW"}) {
    EXPECT_EQ(d66.count(only_66), 1u) << only_66;
    EXPECT_EQ(d612.count(only_66), 0u) << only_66;
  }
  EXPECT_EQ(defaults("eevdf"), d612);  // the alias is 6.12's row
}

// Values are parsed by their declared types and limits; the combinations a model refuses
// are refused with the key and the reason, naming the file.
TEST(Registry, ValuesAreCheckedByTypeLimitAndModel) {
  EXPECT_EQ(refusal("rr", "slice_ns", "-5"), "s.json: --param slice_ns: negative value -5");
  EXPECT_EQ(refusal("cfs-2.6.32", "START_DEBIT", "2"),
            "s.json: --param START_DEBIT: '2' is not 0 or 1");
  EXPECT_EQ(refusal("eevdf-6.6", "sched_tunable_scaling", "3"),
            "s.json: --param sched_tunable_scaling: must be 0, 1 or 2");
  EXPECT_EQ(refusal("eevdf-6.12", "sched_base_slice_ns", "0"),
            "s.json: --param sched_base_slice_ns: must be positive");
  EXPECT_EQ(refusal("sd", "rr_interval_ms", "0"), "s.json: rr_interval_ms: must be at least 1 ms");
  EXPECT_EQ(refusal("o1", "starvation_limit_ms", "0"), "");
  EXPECT_EQ(refusal("bfs-0.304", "scan_pick", "1"), "");
}

}  // namespace
}  // namespace schedlab
