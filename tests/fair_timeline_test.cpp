// The CFS timeline (fair/timeline.h) against an ordered set: on random queues with few
// distinct vruntimes (ties common) that grow past several heap levels and shrink again,
// after every insertion or erasure the leftmost is the set's first in (vruntime,
// insertion) order, the rightmost its last, and the size matches; several queues share
// the positions table, as the run queues do.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "policy/fair/timeline.h"

namespace schedlab::test {
namespace {

TEST(FairTimeline, LeftmostAndRightmostFollowVruntimeThenInsertion) {
  std::mt19937_64 rng(11);
  constexpr int kTasks = 600;
  std::vector<int32_t> positions(kTasks, -1);
  std::vector<fair::Timeline> queues(3, fair::Timeline(&positions));
  using Key = std::tuple<int64_t, uint64_t, TaskId>;  // vruntime, insertion, task
  std::vector<std::set<Key>> model(3);
  std::vector<int> queue_of(kTasks, -1);
  std::vector<Key> key_of(kTasks);
  uint64_t seq = 0;
  size_t largest = 0;
  for (int step = 0; step < 40000; ++step) {
    const auto id = static_cast<TaskId>(rng() % kTasks);
    // Grow for the first half of each 10,000 steps, then mostly shrink.
    const bool growing = step % 10000 < 5000;
    if (queue_of[id] < 0 && (growing || rng() % 4 == 0)) {
      const int q = static_cast<int>(rng() % 3);
      const auto vruntime = static_cast<int64_t>(rng() % 40);
      queues[q].insert(id, vruntime);
      key_of[id] = {vruntime, seq++, id};
      model[q].insert(key_of[id]);
      queue_of[id] = q;
    } else if (queue_of[id] >= 0 && (!growing || rng() % 4 == 0)) {
      const int q = queue_of[id];
      queues[q].erase(id);
      model[q].erase(key_of[id]);
      queue_of[id] = -1;
    } else {
      continue;
    }
    for (int q = 0; q < 3; ++q) {
      ASSERT_EQ(queues[q].size(), model[q].size()) << "step " << step;
      largest = std::max(largest, model[q].size());
      if (model[q].empty()) {
        ASSERT_EQ(queues[q].leftmost(), kNoTask);
        continue;
      }
      ASSERT_EQ(queues[q].leftmost(), std::get<2>(*model[q].begin())) << "step " << step;
      ASSERT_EQ(queues[q].rightmost(), std::get<2>(*model[q].rbegin())) << "step " << step;
    }
  }
  EXPECT_GT(largest, 150u);  // deep enough for several levels of the heap
}

}  // namespace
}  // namespace schedlab::test
