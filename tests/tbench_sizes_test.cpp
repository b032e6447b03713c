// tbench's exchange sizes from dbench 4.0's sockio.c, client.txt's counted table and a
// pair's sample of it (src/workload/generators/tbench_sizes.cpp).
#include "workload/generators/tbench_sizes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "harness.h"
#include "util/rng.h"

namespace schedlab::test {
namespace {

std::tuple<std::string, int64_t, int64_t, int64_t> sizes(const std::string& line,
                                                         std::string_view dir = ".") {
  const auto e = tbench_line_exchange(line, dir);
  if (!e) return {"none", 0, 0, 0};
  return {std::string(e->kind), e->request, e->reply, e->counted};
}

// Hand-computed from sockio.c: "./clients/client1/~dmtmp" is 24 characters.
TEST(TbenchSizes, EachOperationAsSockioSizesIt) {
  using T = std::tuple<std::string, int64_t, int64_t, int64_t>;
  EXPECT_EQ(sizes(R"(NTCreateX "\clients\client1\~dmtmp" 0x1 0x2 9937 NT_STATUS_OK)"),
            (T{"NTCreateX", 70 + 2 + 24 * 2 + 2, 39 + 48, 0}));
  // -D /tmp/x: the path is 27 characters.
  EXPECT_EQ(sizes(R"(NTCreateX "\clients\client1\~dmtmp" 0x1 0x2 9937 NT_STATUS_OK)", "/tmp/x"),
            (T{"NTCreateX", 70 + 2 + 29 * 2 + 2, 39 + 48, 0}));
  // WriteX handle offset size ret_size: the request carries `size`, which is counted.
  EXPECT_EQ(sizes("WriteX 9938 65534 1 1 NT_STATUS_OK"), (T{"WriteX", 60, 55, 1}));
  EXPECT_EQ(sizes("WriteX 9938 0 65536 65536 NT_STATUS_OK"), (T{"WriteX", 65595, 55, 65536}));
  // ReadX handle offset size ret_size: the reply carries `ret_size`, which is counted.
  EXPECT_EQ(sizes("ReadX 10001 0 4096 1000 NT_STATUS_OK"), (T{"ReadX", 59, 1059, 1000}));
  EXPECT_EQ(sizes("Close 9937 NT_STATUS_OK"), (T{"Close", 47, 39, 0}));
  EXPECT_EQ(sizes(R"(QUERY_PATH_INFORMATION "\clients\client1\~dmtmp" 1004 NT_STATUS_OK)"),
            (T{"QUERY_PATH_INFORMATION", 39 + 16 + 48, 71, 0}));
  // FIND_FIRST name level maxcnt count: 90 B per entry found.
  EXPECT_EQ(sizes(R"(FIND_FIRST "\clients\client1\FILLER.*" 260 1366 3 NT_STATUS_OK)"),
            (T{"FIND_FIRST", 39 + 20 + 2 * 26, 39 + 270, 0}));
  // "./a b" and "./cd".
  EXPECT_EQ(sizes(R"(Rename "\a b" "\cd" NT_STATUS_OK)"),
            (T{"Rename", 39 + 8 + 2 * 5 + 2 * 4, 39, 0}));
  EXPECT_EQ(sizes("QUERY_FS_INFORMATION 1 NT_STATUS_OK"), (T{"QUERY_FS_INFORMATION", 59, 71, 0}));
  EXPECT_EQ(sizes("SET_FILE_INFORMATION 9938 1004 NT_STATUS_OK"),
            (T{"SET_FILE_INFORMATION", 71, 47, 0}));
  EXPECT_EQ(sizes("LockX 9938 0 1 NT_STATUS_OK"), (T{"LockX", 51, 39, 0}));
  EXPECT_EQ(sizes("Flush 9938 NT_STATUS_OK"), (T{"Flush", 41, 39, 0}));
  EXPECT_EQ(sizes(R"(Unlink "\clients\client1\x" 0x10 NT_STATUS_OK)"),
            (T{"Unlink", 39 + 2 + 2 * 19 + 2, 39, 0}));
  // A timed line: its first field is the time.
  EXPECT_EQ(sizes("1.5 Close 9937 NT_STATUS_OK"), (T{"Close", 47, 39, 0}));
  // No exchange: Deltree, Sleep, a comment, a bad status, a lone word.
  for (const char* line : {R"(Deltree "\clients\client1" NT_STATUS_OK)", "Sleep 10 NT_STATUS_OK",
                           "# Close 1 NT_STATUS_OK", "Close 9937 OK", "Close"})
    EXPECT_EQ(std::get<0>(sizes(line)), "none") << line;
}

// The shipped table is what the installed client.txt gives, line by line.
TEST(TbenchSizes, TableMatchesTheInstalledClientTxt) {
  const std::filesystem::path path = "/usr/share/dbench/client.txt";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not installed (dbench)";
  std::ifstream in(path);
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>, int64_t> counted;
  int64_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    if (const auto e = tbench_line_exchange(line))
      ++counted[{std::string(e->kind), e->request, e->reply, e->counted}];
  }
  EXPECT_EQ(lines, 458'344);
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>, int64_t> table;
  for (const TbenchExchange& e : tbench_client_txt())
    table[{std::string(e.kind), e.request, e.reply, e.counted}] += e.occurrences;
  EXPECT_EQ(table, counted);
}

TEST(TbenchSizes, TableTotals) {
  int64_t n = 0, counted = 0, reads = 0, writes = 0;
  for (const TbenchExchange& e : tbench_client_txt()) {
    n += e.occurrences;
    counted += e.counted * e.occurrences;
    reads += e.kind == "ReadX" ? e.occurrences : 0;
    writes += e.kind == "WriteX" ? e.occurrences : 0;
  }
  EXPECT_EQ(n, 458'342);  // every line but the 2 Deltree
  EXPECT_EQ(reads, 124'199);
  EXPECT_EQ(writes, 39'502);
  EXPECT_EQ(counted, 2'488'062'937);
}

// A sample as long as the file is the file's multiset; a shorter one keeps its mix.
TEST(TbenchSizes, SampleIsSystematicOverTheFile) {
  Rng rng(7);
  int64_t counted = 0, reads = 0;
  for (const TbenchExchange& e : tbench_sample(458'342, rng)) {
    counted += e.counted;
    reads += e.kind == "ReadX";
  }
  EXPECT_EQ(counted, 2'488'062'937);
  EXPECT_EQ(reads, 124'199);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Rng r(seed);
    const std::vector<TbenchExchange> s = tbench_sample(1024, r);
    ASSERT_EQ(s.size(), 1024u);
    int64_t read_count = 0;
    for (const TbenchExchange& e : s) read_count += e.kind == "ReadX";
    // 124,199 of 458,342 is 277.5 of 1024: a systematic sample holds 277 or 278.
    EXPECT_GE(read_count, 277) << seed;
    EXPECT_LE(read_count, 278) << seed;
  }
}

// One pair replaying the whole file once marks exactly the bytes tbench counts for one
// pass over client.txt, and one operation per exchange.
TEST(TbenchSizes, OnePassMarksTheFilesReadAndWriteBytes) {
  ScenarioOverrides o;
  o.policy = "rr";
  const RunOutput r = run_text(R"({"machine": {"cpus": 2}, "global": {"duration": 100},
      "workload": {"generator": "tbench", "clients": 1, "ops": 458342}})",
                               o);
  EXPECT_TRUE(r.result.all_exited);
  EXPECT_EQ(r.metrics.marks.at("tbench_ops").count, 458'342u);
  EXPECT_EQ(r.metrics.marks.at("tbench_bytes").count, 2'488'062'937u);
}

}  // namespace
}  // namespace schedlab::test
