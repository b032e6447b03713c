// ChunkedStore: indexes across chunk boundaries, addresses that stay put as it grows, and
// every object destroyed once.
#include "util/chunked_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace schedlab {
namespace {

TEST(ChunkedStore, AddressesStayPutAndIndexesReachEveryChunk) {
  ChunkedStore<std::string> store;
  std::vector<const std::string*> where;
  const size_t n = 3 * ChunkedStore<std::string>::kChunk + 5;  // four chunks, the last part full
  for (size_t i = 0; i < n; ++i) {
    std::string& s = store.emplace_back();
    EXPECT_TRUE(s.empty());  // value-initialised
    s = "task-" + std::to_string(i);
    where.push_back(&s);
  }
  ASSERT_EQ(store.size(), n);
  const ChunkedStore<std::string>& view = store;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(&store[i], where[i]) << i;  // not moved by the later growth
    EXPECT_EQ(view[i], "task-" + std::to_string(i)) << i;
  }
  size_t i = 0;
  for (const std::string& s : view) EXPECT_EQ(&s, where[i++]);  // in index order, all
  EXPECT_EQ(i, n);
}

struct Counted {
  static inline int alive = 0;
  int value = 7;
  Counted() { ++alive; }
  ~Counted() { --alive; }
};

TEST(ChunkedStore, DestroysEveryObjectOnce) {
  {
    ChunkedStore<Counted> store;
    for (int i = 0; i < 2500; ++i) EXPECT_EQ(store.emplace_back().value, 7);
    EXPECT_EQ(Counted::alive, 2500);
  }
  EXPECT_EQ(Counted::alive, 0);
}

}  // namespace
}  // namespace schedlab
