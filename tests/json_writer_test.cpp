// The --json writer's fast paths against nlohmann's: a task name quoted without building a
// JSON value, and the tasks array written piece by piece through a buffer, both on random
// input, must give exactly what nlohmann's dump() and dump(2) give.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/json_report.h"
#include "report/json_text.h"
#include "util/rng.h"

namespace schedlab {
namespace {

// Mostly printable ASCII, with quotes, backslashes, control characters, DEL and bytes
// above 0x7f (valid and broken UTF-8) mixed in.
std::string random_name(Rng& rng) {
  static const std::string kOdd = std::string("\"\\\x01\x1f\x7f\xc3\xa9\xff\xe2\x82", 11);
  std::string s;
  const auto n = rng.below(12);
  for (uint64_t i = 0; i < n; ++i)
    s += rng.below(8) == 0 ? kOdd[rng.below(kOdd.size())]
                           : static_cast<char>(0x20 + rng.below(0x5f));
  return s;
}

TEST(JsonWriter, TaskNamesQuoteAsNlohmannDumps) {
  Rng rng(7);
  int plain = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string s = random_name(rng);
    const std::string expected = nlohmann::json(utf8_or_escaped(s)).dump();
    ASSERT_EQ(json_string(s), expected) << i;
    plain += expected == "\"" + s + "\"";
  }
  EXPECT_GT(plain, 500);  // both paths taken
  EXPECT_LT(plain, 2900);
}

int64_t random_number(Rng& rng) {
  switch (rng.below(4)) {
    case 0:
      return 0;
    case 1:
      return static_cast<int64_t>(rng.below(1000));
    case 2:
      return -static_cast<int64_t>(rng.below(1'000'000'000));
    default:
      return static_cast<int64_t>(rng.next() >> 1);  // up to 19 digits
  }
}

// The whole --json text parsed and dumped again by nlohmann (dump(2)) is the text itself:
// the streamed tasks array has dump(2)'s layout and numbers, for any figures.
TEST(JsonWriter, TheTasksArrayIsLaidOutAsDump2) {
  Rng rng(11);
  for (int round = 0; round < 20; ++round) {
    Metrics m;
    m.policy = "cfs";
    m.cpus = 1 + static_cast<int>(rng.below(70));
    const auto tasks = rng.below(40);
    for (uint64_t i = 0; i < tasks; ++i) {
      TaskMetrics& t = m.tasks.emplace_back();
      t.tid = static_cast<TaskId>(i);
      t.name = random_name(rng);
      t.pid = random_number(rng);
      t.cpu_time_ns = random_number(rng);
      t.wait_time_ns = random_number(rng);
      t.switches_voluntary = rng.next();
      t.migrations = rng.below(10);
      for (uint64_t k = rng.below(30); k > 0; --k)
        t.wakeup_latency.add(static_cast<int64_t>(rng.below(1'000'000)));
      t.preempted_gaps = rng.below(3);
      t.preempted_gap_total_ns = random_number(rng);
      t.delays = rng.below(3);
      t.delay_total_ns = random_number(rng);
      t.delay_max_end_ns = random_number(rng);
      // figures the writer sums (residency per CPU, slack) stay within a run's range
      // (±1,000 s), so that their sums do not overflow
      const auto bounded = [&rng] {
        return static_cast<int64_t>(rng.below(2'000'000'000'000)) - 1'000'000'000'000;
      };
      for (uint64_t k = rng.below(5); k > 0; --k)
        t.cpu_residency.add(static_cast<CpuId>(rng.below(80)), bounded() + 1'000'000'000'000);
      for (uint64_t k = rng.below(3); k > 0; --k) t.activations.push_back({.slack_ns = bounded()});
      t.missed_periods = rng.below(2);
    }
    const std::string text = metrics_json(m);
    EXPECT_EQ(nlohmann::ordered_json::parse(text).dump(2) + "\n", text) << round;
  }
}

}  // namespace
}  // namespace schedlab
