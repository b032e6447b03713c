// Parameters declared once: the typed field, its default, text and JSON parsing with
// limits, and the listing all come from one X-macro line.
#include <gtest/gtest.h>

#include "params/declared.h"
#include "util/error.h"

namespace schedlab {
namespace {

#define TOY_PARAMS(X)                                                                      \
  X(int64_t, slice_ns, 4'000'000, params::at_least(0), "toy 1.0", "the slice")             \
  X(bool, START_DEBIT, true, params::any(), "toy 1.0", "a new task starts one slice late") \
  X(int, threads, 0, params::range(1, 128).or_word("auto", 0), "toy 1.1", "0: auto")       \
  X(double, jitter, 0.1, params::range(0, 0.99), "toy 1.1", "cost jitter")                 \
  X(std::string, preset, "medium", params::one_of({"ultrafast", "medium"}), "toy 1.2", "the preset")
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
  EXPECT_EQ(error_of([&] {
              t.set_object(p, bad, {"w.json", "workload", "generator 'toy'"});
            }),
            "w.json: workload.jitter: 2 is outside 0..0.99");
  const JValue unknown = parse_json(R"({"thraeds": 2})", "w.json");
  EXPECT_NE(error_of([&] {
              t.set_object(p, unknown, {"w.json", "workload", "generator 'toy'"});
            }).find("w.json: workload.thraeds: unknown parameter for generator 'toy'"),
            std::string::npos);
}

// The kinds a generator needs: a CPU list (absent by default), durations with
// JsonReader::duration's wording, a half-open range, and "auto" words.
#define GEN_TOY_PARAMS(X)                                                           \
  X(params::CpuList, cpus, std::nullopt, params::any(), "toy 2.0", "where it runs") \
  X(Time, wait_ns, 5, params::duration(), "toy 2.0", "how long it waits")           \
  X(double, share, 0.5, params::half_open(0, 1), "toy 2.0", "a share below one")    \
  X(int, jobs, 0, params::range(1, 64).or_word("auto", 0), "toy 2.0", "0: the CPU count")
SCHEDLAB_DECLARE_PARAMS(GenToyParams, GEN_TOY_PARAMS)

const params::Target kGen{"w.json", "workload", "generator 'toy'"};

std::string object_error(const std::string& text) {
  GenToyParams p;
  return error_of([&] { GenToyParams::table().set_object(p, parse_json(text, "w.json"), kGen); });
}

TEST(DeclaredParams, CpuListsAreAbsentUntilGivenAndCheckedAgainstTheMachineLater) {
  const auto& t = GenToyParams::table();
  GenToyParams p;
  EXPECT_FALSE(p.cpus.has_value());
  t.set_object(p, parse_json(R"({"cpus": [3, 1]})", "w.json"), kGen);
  EXPECT_EQ(p.cpus, (std::vector<int>{3, 1}));
  EXPECT_EQ(object_error(R"({"cpus": [0, "a"]})"),
            "w.json: workload.cpus[1]: expected an integer, found a string");
  EXPECT_EQ(object_error(R"({"cpus": [4096]})"),
            "w.json: workload.cpus[0]: 4096 is outside 0..4095");
  EXPECT_EQ(object_error(R"({"cpus": 1})"),
            "w.json: workload.cpus: expected an array of integers, found an integer");
  // CPU 3 is a CPU number, but a 2-CPU machine does not have it.
  EXPECT_EQ(error_of([&] { t.check_cpu_lists(p, kGen, 2); }),
            "w.json: workload.cpus: CPU 3 is outside the machine's 2 CPUs");
  EXPECT_EQ(error_of([&] { t.check_cpu_lists(p, kGen, 4); }), "");
  t.set_text(p, "cpus", "0,2", kAt);
  EXPECT_EQ(p.cpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(t.value_text(p, *t.find("cpus")), "0,2");
  t.set_text(p, "cpus", "all", kAt);
  EXPECT_FALSE(p.cpus.has_value());
  EXPECT_EQ(t.value_text(p, *t.find("cpus")), "all");
}

TEST(DeclaredParams, DurationsAndHalfOpenRangesWordTheirReasons) {
  GenToyParams p;
  const auto& t = GenToyParams::table();
  t.set_object(p, parse_json(R"({"wait_ns": 0, "share": 0.999})", "w.json"), kGen);
  EXPECT_EQ(p.wait_ns, 0);
  EXPECT_DOUBLE_EQ(p.share, 0.999);
  t.set_object(p, parse_json(R"({"wait_ns": 1125899906842624})", "w.json"), kGen);  // 2^50
  EXPECT_EQ(p.wait_ns, kMaxDurationNs);
  EXPECT_EQ(object_error(R"({"wait_ns": -3})"), "w.json: workload.wait_ns: negative duration -3");
  EXPECT_EQ(object_error(R"({"wait_ns": 1125899906842625})"),
            "w.json: workload.wait_ns: duration 1125899906842625 overflows (the limit is "
            "1125899906842624 ns)");
  EXPECT_EQ(error_of([&] { t.set_text(p, "wait_ns", "-1", kAt); }),
            "f.json: --param wait_ns: negative duration -1");
  EXPECT_EQ(object_error(R"({"share": 1})"), "w.json: workload.share: 1 is outside [0, 1)");
  EXPECT_EQ(object_error(R"({"share": -0.5})"), "w.json: workload.share: -0.5 is outside [0, 1)");
}

TEST(DeclaredParams, ListingShowsAValueThatHasAWordAsTheWord) {
  GenToyParams p;
  auto rows = GenToyParams::table().rows(p);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].value, "all");
  EXPECT_EQ(rows[0].type, "params::CpuList");
  EXPECT_EQ(rows[1].type, "Time");
  EXPECT_EQ(rows[3].value, "auto");
  p.jobs = 8;
  rows = GenToyParams::table().rows(p);
  EXPECT_EQ(rows[3].value, "8");
}

TEST(DeclaredParams, NameOfAMemberIsItsDeclaredName) {
  EXPECT_STREQ(GenToyParams::table().name_of(&GenToyParams::share), "share");
  EXPECT_STREQ(ToyParams::table().name_of(&ToyParams::START_DEBIT), "START_DEBIT");
  EXPECT_STREQ(ToyParams::table().name_of(&ToyParams::preset), "preset");
}

// A family's presets (CFS 2.6.31 and 2.6.32): each release's table picks the family's
// fields it has, in its own order, an effect may be worded for a release, and a field a
// preset does not offer cannot be set through it.
TEST(DeclaredParams, PresetTablesOfferTheirOwnFieldsInTheirOwnOrder) {
  const auto& t = ToyParams::table();
  const auto only = t.only({&ToyParams::preset, &ToyParams::slice_ns});
  EXPECT_EQ(only.names(), (std::vector<std::string>{"preset", "slice_ns"}));
  EXPECT_EQ(t.without({&ToyParams::START_DEBIT, &ToyParams::jitter}).names(),
            (std::vector<std::string>{"slice_ns", "threads", "preset"}));
  const auto worded = only.with_effect(&ToyParams::slice_ns, "the slice in this release");
  EXPECT_EQ(worded.rows(ToyParams{})[1].effect, "the slice in this release");
  EXPECT_EQ(only.rows(ToyParams{})[1].effect, "the slice");  // a copy: the original stays
  ToyParams p;
  only.set_text(p, "slice_ns", "9", kAt);
  EXPECT_EQ(p.slice_ns, 9);
  EXPECT_EQ(error_of([&] { only.set_text(p, "START_DEBIT", "0", kAt); }),
            "f.json: --param START_DEBIT: unknown parameter for policy 'toy' (it has: preset, "
            "slice_ns)");
}

}  // namespace
}  // namespace schedlab
