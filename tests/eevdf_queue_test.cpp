// EEVDF's deadline queue (the timeline and pick_eevdf()'s choice) against a plain scan:
// on random queues (small key ranges, so equal vruntimes and equal deadlines are common)
// that grow to many blocks and shrink to one again, after every insertion or erasure the
// pick for a random eligibility bound equals the scan's, with and without an excluded
// entity (queued there or not), the walk is in (vruntime, insertion) order, its first is
// the leftmost, and the blocks stay consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "policy/eevdf/deadline_queue.h"
#include "policy/eevdf/deadline_tree.h"

namespace schedlab::test {
namespace {

struct Queued {
  int64_t vruntime, deadline;
  uint64_t seq;
};

// The scan: the earliest deadline among vruntime <= bound, then the smaller vruntime, then
// the earlier insertion; `excluded` left out.
TaskId scan(const std::map<TaskId, Queued>& q, int64_t bound, TaskId excluded) {
  TaskId best = kNoTask;
  for (const auto& [id, e] : q) {
    if (id == excluded || e.vruntime > bound) continue;
    if (best == kNoTask) {
      best = id;
      continue;
    }
    const Queued& b = q.at(best);
    if (e.deadline < b.deadline ||
        (e.deadline == b.deadline &&
         (e.vruntime < b.vruntime || (e.vruntime == b.vruntime && e.seq < b.seq))))
      best = id;
  }
  return best;
}

TEST(EevdfQueue, PickEqualsTheScanAsQueuesGrowAndShrink) {
  constexpr int kTasks = 600, kQueues = 2;
  std::mt19937_64 rng(23);
  // Small thresholds, so that both forms (blocks, tree) and the moves between them occur.
  eevdf::DeadlineTree tree;
  tree.grow(kTasks - 1);
  std::vector<eevdf::DeadlineQueue> queues(kQueues, eevdf::DeadlineQueue(200, 100));
  std::vector<bool> was_tree(kQueues, false);
  int to_tree = 0, to_blocks = 0;
  std::vector<std::map<TaskId, Queued>> model(kQueues);
  std::vector<int> where(kTasks, -1);
  uint64_t seq = 0;
  size_t largest = 0;
  int emptied = 0, ties = 0, whole_blocks = 0;
  for (int step = 0; step < 60000; ++step) {
    // Long stretches of mostly inserting, then mostly erasing.
    const int q = static_cast<int>(rng() % kQueues);
    const bool grow = (step / 4000) % 2 == 0 ? rng() % 10 < 8 : rng() % 10 < 1;
    auto id = static_cast<TaskId>(rng() % kTasks);
    if (!grow && !model[q].empty()) {  // erase one of this queue's, at random
      auto it = model[q].begin();
      std::advance(it, static_cast<long>(rng() % model[q].size()));
      id = it->first;
    }
    if (grow && where[id] < 0) {
      // Vruntimes over a range wider than a block, deadlines a little after them.
      const auto v = static_cast<int64_t>(rng() % 200), d = v + static_cast<int64_t>(rng() % 8);
      queues[q].insert(tree, id, v, d);
      model[q][id] = {v, d, seq++};
      where[id] = q;
    } else if (!grow && where[id] >= 0) {
      const int from = where[id];
      queues[from].erase(tree, id, model[from][id].vruntime);
      model[from].erase(id);
      where[id] = -1;
      if (model[from].empty()) ++emptied;
    } else {
      continue;
    }
    for (int k = 0; k < kQueues; ++k) {
      const eevdf::DeadlineQueue& dq = queues[k];
      if (dq.in_tree() != was_tree[k]) ++(dq.in_tree() ? to_tree : to_blocks);
      was_tree[k] = dq.in_tree();
      ASSERT_TRUE(dq.consistent(tree)) << "step " << step;
      ASSERT_EQ(dq.size(), model[k].size());
      largest = std::max(largest, dq.size());
      std::vector<std::pair<std::pair<int64_t, uint64_t>, TaskId>> order;
      for (const auto& [queued, e] : model[k]) order.push_back({{e.vruntime, e.seq}, queued});
      std::sort(order.begin(), order.end());
      std::vector<TaskId> walked, want_order;
      dq.for_each(tree, [&](TaskId x) { walked.push_back(x); });
      for (const auto& o : order) want_order.push_back(o.second);
      ASSERT_EQ(walked, want_order) << "step " << step;
      ASSERT_EQ(dq.leftmost(), order.empty() ? kNoTask : order.front().second);
      if (!order.empty()) {
        ASSERT_EQ(dq.leftmost_vruntime(), order.front().first.first);
      }
      // Bounds across the whole range, so that whole blocks and partial ones are eligible.
      const auto bound = static_cast<int64_t>(rng() % 210) - 2;
      const auto eligible = [&](int64_t v) { return v <= bound; };
      const TaskId want = scan(model[k], bound, kNoTask);
      ASSERT_EQ(dq.pick_without(tree, kNoTask, eligible), want) << "step " << step;
      if (want != kNoTask)
        for (const auto& [other, e] : model[k])
          if (other != want && e.deadline == model[k][want].deadline) ++ties;
      if (!order.empty() && bound >= order.back().first.first && model[k].size() > 64)
        ++whole_blocks;
      const auto ex = static_cast<TaskId>(rng() % kTasks);  // queued here, elsewhere, or not
      ASSERT_EQ(dq.pick_without(tree, ex, eligible), scan(model[k], bound, ex))
          << "step " << step << " without " << ex;
      if (!model[k].empty()) {  // the minimum itself excluded
        const TaskId first = scan(model[k], bound, kNoTask);
        ASSERT_EQ(dq.pick_without(tree, first, eligible), scan(model[k], bound, first));
      }
    }
  }
  EXPECT_GT(largest, 200u);  // many blocks, split and merged, then the tree
  EXPECT_GE(to_tree, 4);
  EXPECT_GE(to_blocks, 4);
  EXPECT_GE(emptied, 4);          // and back to nothing
  EXPECT_GT(ties, 5000);          // equal deadlines were common, so the tie-break was exercised
  EXPECT_GT(whole_blocks, 1000);  // picks answered from the blocks' minima
}

// By hand: vruntimes 1..4 with deadlines 9, 5, 5, 3. Up to vruntime 1 only the first is
// eligible; up to 3 the two of deadline 5 tie and the smaller vruntime (2) wins; up to 4
// the deadline 3. Equal vruntime and deadline: the earlier insertion.
TEST(EevdfQueue, HandComputedPicks) {
  for (const bool tree_form : {false, true}) {
    eevdf::DeadlineTree t;
    t.grow(9);
    // to_tree 0: the tree from the first insertion, which it keeps while at least 1 remain.
    eevdf::DeadlineQueue q = tree_form ? eevdf::DeadlineQueue(0, 1) : eevdf::DeadlineQueue();
    q.insert(t, 1, 1, 9);
    q.insert(t, 2, 2, 5);
    q.insert(t, 3, 3, 5);
    q.insert(t, 4, 4, 3);
    EXPECT_EQ(q.in_tree(), tree_form);
    EXPECT_EQ(q.pick_without(t, kNoTask, [](int64_t v) { return v <= 0; }), kNoTask);
    EXPECT_EQ(q.pick_without(t, kNoTask, [](int64_t v) { return v <= 1; }), 1);
    EXPECT_EQ(q.pick_without(t, kNoTask, [](int64_t v) { return v <= 3; }), 2);
    EXPECT_EQ(q.pick_without(t, kNoTask, [](int64_t v) { return v <= 4; }), 4);
    EXPECT_EQ(q.pick_without(t, 2, [](int64_t v) { return v <= 3; }), 3);
    q.insert(t, 6, 2, 5);  // the same key as 2, inserted later
    q.insert(t, 5, 2, 5);
    q.erase(t, 4, 4);
    EXPECT_EQ(q.pick_without(t, kNoTask, [](int64_t v) { return v <= 9; }), 2);
    EXPECT_EQ(q.pick_without(t, 2, [](int64_t v) { return v <= 9; }), 6);
    q.erase(t, 2, 2);
    EXPECT_EQ(q.pick_without(t, kNoTask, [](int64_t v) { return v <= 9; }), 6);
    EXPECT_EQ(q.leftmost(), 1);
    EXPECT_TRUE(q.consistent(t));
    EXPECT_EQ(q.size(), 4u);
  }
}

}  // namespace
}  // namespace schedlab::test
