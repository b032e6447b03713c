// The CFS timeline (fair/timeline.h) against an ordered set: on random queues with few
// distinct vruntimes (ties common) that grow past several heap levels and shrink again,
// after every insertion or erasure the leftmost is the set's first in (vruntime,
// insertion) order, the rightmost its last, the walk is the set's order, and the size
// matches; several queues share the key table, as the run queues do.
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
  constexpr int kTasks = 1500;
  std::vector<fair::TimelineKey> keys(kTasks);
  std::vector<fair::Timeline> queues(3, fair::Timeline(&keys));
  using Key = std::tuple<int64_t, uint64_t, TaskId>;  // vruntime, insertion, task
  std::vector<std::set<Key>> model(3);
  std::vector<int> queue_of(kTasks, -1);
  std::vector<Key> key_of(kTasks);
  uint64_t seq = 0;
  size_t largest = 0;
  for (int step = 0; step < 60000; ++step) {
    const auto id = static_cast<TaskId>(rng() % kTasks);
    // Grow for 12,000 of each 20,000 steps, then mostly shrink.
    const bool growing = step % 20000 < 12000;
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
      if (step % 97 == 0) {  // the walk, now and then
        std::vector<TaskId> walk, expected;
        queues[q].for_each([&](TaskId t) { walk.push_back(t); });
        for (const Key& k : model[q]) expected.push_back(std::get<2>(k));
        ASSERT_EQ(walk, expected) << "step " << step;
      }
    }
  }
  EXPECT_GT(largest, 2 * fair::Timeline::kMaxBlock);  // several blocks
}

}  // namespace
}  // namespace schedlab::test
