// Parameters declared once: the typed field, its default, text and JSON parsing with
// limits, and the listing all come from one X-macro line.
#include "params/declared.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace schedlab {
namespace {

#define TOY_PARAMS(X)                                                                     \
  X(int64_t, slice_ns, 4'000'000, params::at_least(0), "toy 1.0", "the slice")          \
  X(bool, START_DEBIT, true, params::any(), "toy 1.0", "a new task starts one slice late") \
  X(int, threads, 0, params::range(1, 128).or_word("auto", 0), "toy 1.1", "0: auto")     \
  X(double, jitter, 0.1, params::range(0, 0.99), "toy 1.1", "cost jitter")                \
  X(std::string, preset, "medium", params::one_of({"ultrafast", "medium"}), "toy 1.2",    \
    "the preset")
SCHEDLAB_DECLARE_PARAMS(ToyParams, TOY_PARAMS)

const params::Target kAt{"f.json", "", "policy 'toy'"};

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DeclaredParams, DefaultsComeFromTheDeclaration) {
  const ToyParams p;
  EXPECT_EQ(p.slice_ns, 4'000'000);
  EXPECT_TRUE(p.START_DEBIT);
  EXPECT_EQ(p.threads, 0);
  EXPECT_DOUBLE_EQ(p.jitter, 0.1);
  EXPECT_EQ(p.preset, "medium");
}

TEST(DeclaredParams, RowsListEveryColumnInOrder) {
  ToyParams preset;
  preset.START_DEBIT = false;  // a preset is a row of defaults
  const auto rows = ToyParams::table().rows(preset);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].name, "slice_ns");
  EXPECT_EQ(rows[0].type, "int64_t");
  EXPECT_EQ(rows[0].value, "4000000");
  EXPECT_EQ(rows[1].value, "0");
  EXPECT_EQ(rows[1].since, "toy 1.0");
  EXPECT_EQ(rows[4].effect, "the preset");
}

TEST(DeclaredParams, TextSettersCheckTypeAndLimits) {
  const auto& t = ToyParams::table();
  ToyParams p;
  t.set_text(p, "slice_ns", "7", kAt);
  EXPECT_EQ(p.slice_ns, 7);
  t.set_text(p, "START_DEBIT", "0", kAt);
  EXPECT_FALSE(p.START_DEBIT);
  t.set_text(p, "threads", "auto", kAt);
  EXPECT_EQ(p.threads, 0);
  t.set_text(p, "threads", "8", kAt);
  EXPECT_EQ(p.threads, 8);
  EXPECT_EQ(error_of([&] { t.set_text(p, "slice_ns", "-1", kAt); }),
            "f.json: --param slice_ns: negative value -1");
  EXPECT_EQ(error_of([&] { t.set_text(p, "slice_ns", "1x", kAt); }),
            "f.json: --param slice_ns: '1x' is not an integer");
  EXPECT_EQ(error_of([&] { t.set_text(p, "START_DEBIT", "2", kAt); }),
            "f.json: --param START_DEBIT: '2' is not 0 or 1");
  EXPECT_EQ(error_of([&] { t.set_text(p, "threads", "200", kAt); }),
            "f.json: --param threads: 200 is outside 1..128");
  EXPECT_EQ(error_of([&] { t.set_text(p, "preset", "slow", kAt); }),
            "f.json: --param preset: unknown value 'slow' (ultrafast, medium)");
  EXPECT_EQ(error_of([&] { t.set_text(p, "slcie_ns", "1", kAt); }),
            "f.json: --param slcie_ns: unknown parameter for policy 'toy' (it has: slice_ns, "
            "START_DEBIT, threads, jitter, preset)");
}

TEST(DeclaredParams, JsonObjectsSetInFileOrder) {
  const auto& t = ToyParams::table();
  ToyParams p;
  const JValue obj = parse_json(
      R"({"generator": "toy", "threads": "auto", "jitter": 0.5, "preset": "ultrafast", "threads": 3})",
      "w.json");
  t.set_object(p, obj, {"w.json", "workload", "generator 'toy'"}, {"generator"});
  EXPECT_EQ(p.threads, 3);  // the later duplicate wins, as rt-app's reader would
  EXPECT_DOUBLE_EQ(p.jitter, 0.5);
  EXPECT_EQ(p.preset, "ultrafast");
  const JValue bad = parse_json(R"({"jitter": 2})", "w.json");
  EXPECT_EQ(error_of([&] { t.set_object(p, bad, {"w.json", "workload", "generator 'toy'"}); }),
            "w.json: workload.jitter: 2 is outside 0..0.99");
  const JValue unknown = parse_json(R"({"thraeds": 2})", "w.json");
  EXPECT_NE(error_of([&] { t.set_object(p, unknown, {"w.json", "workload", "generator 'toy'"}); })
                .find("w.json: workload.thraeds: unknown parameter for generator 'toy'"),
            std::string::npos);
}

}  // namespace
}  // namespace schedlab
