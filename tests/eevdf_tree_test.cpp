// EEVDF's deadline tree against the scan it replaced: on random queues (small key ranges,
// so equal vruntimes and equal deadlines are common), after every insertion or erasure,
// the tree's pick for a random eligibility bound equals the linear scan's, with and
// without an excluded entity, and the tree stays consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

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

TEST(EevdfTree, PickEqualsTheScanOnRandomQueues) {
  constexpr int kTasks = 64, kQueues = 3;
  std::mt19937_64 rng(19);
  eevdf::DeadlineTree tree;
  tree.grow(kTasks - 1);
  std::vector<TaskId> root(kQueues, kNoTask);
  std::vector<std::map<TaskId, Queued>> model(kQueues);
  std::vector<int> where(kTasks, -1);
  uint64_t seq = 0;
  int checked = 0, excluded_checked = 0, ties = 0;
  for (int step = 0; step < 20000; ++step) {
    const auto id = static_cast<TaskId>(rng() % kTasks);
    if (where[id] < 0) {
      const int q = static_cast<int>(rng() % kQueues);
      const auto v = static_cast<int64_t>(rng() % 16), d = v + static_cast<int64_t>(rng() % 8);
      tree.insert(root[q], id, v, d);
      model[q][id] = {v, d, seq++};
      where[id] = q;
    } else {
      tree.erase(root[where[id]], id);
      model[where[id]].erase(id);
      where[id] = -1;
    }
    for (int q = 0; q < kQueues; ++q) {
      ASSERT_TRUE(tree.consistent(root[q])) << "step " << step;
      ASSERT_EQ(tree.size(root[q]), model[q].size());
      const auto bound = static_cast<int64_t>(rng() % 18) - 1;
      const auto eligible = [&](int64_t v) { return v <= bound; };
      const TaskId want = scan(model[q], bound, kNoTask);
      ASSERT_EQ(tree.pick(root[q], eligible), want) << "step " << step << " queue " << q;
      ++checked;
      if (want != kNoTask)
        for (const auto& [other, e] : model[q])
          if (other != want && e.deadline == model[q][want].deadline) ++ties;
      if (model[q].empty()) continue;
      auto it = model[q].begin();
      std::advance(it, static_cast<long>(rng() % model[q].size()));
      const TaskId ex = it->first;
      ASSERT_EQ(tree.pick_without(root[q], ex, eligible), scan(model[q], bound, ex))
          << "step " << step << " queue " << q << " without " << ex;
      ASSERT_TRUE(tree.consistent(root[q]));
      ASSERT_TRUE(tree.contains(ex));
      ++excluded_checked;
    }
  }
  EXPECT_GT(checked, 50000);
  EXPECT_GT(excluded_checked, 50000);
  EXPECT_GT(ties, 10000);  // equal deadlines were common, so the tie-break was exercised
}

// The run queue's hybrid (a sorted array while short, the tree while long) against the
// scan: queues that grow past kToTree and shrink below kToArray again and again, with
// equal keys common, pick what the scan picks after every change, with and without an
// excluded entity (queued there or not), and keep the leftmost and the walk in key order.
TEST(EevdfTree, QueuePickEqualsTheScanAcrossBothForms) {
  constexpr int kTasks = 300, kQueues = 2;
  std::mt19937_64 rng(23);
  eevdf::DeadlineTree tree;
  tree.grow(kTasks - 1);
  std::vector<eevdf::DeadlineQueue> queues(kQueues);
  std::vector<std::map<TaskId, Queued>> model(kQueues);
  std::vector<int> where(kTasks, -1);
  uint64_t seq = 0;
  int to_tree = 0, to_array = 0, ties = 0;
  std::vector<bool> was_tree(kQueues, false);
  for (int step = 0; step < 40000; ++step) {
    // Long stretches of mostly inserting, then mostly erasing, per queue.
    const int q = static_cast<int>(rng() % kQueues);
    const bool grow = (step / 3000) % 2 == 0 ? rng() % 10 < 8 : rng() % 10 < 2;
    const auto id = static_cast<TaskId>(rng() % kTasks);
    if (grow && where[id] < 0) {
      const auto v = static_cast<int64_t>(rng() % 24), d = v + static_cast<int64_t>(rng() % 8);
      queues[q].insert(tree, id, v, d);
      model[q][id] = {v, d, seq++};
      where[id] = q;
    } else if (!grow && where[id] >= 0) {
      queues[where[id]].erase(tree, id);
      model[where[id]].erase(id);
      where[id] = -1;
    } else {
      continue;
    }
    for (int k = 0; k < kQueues; ++k) {
      if (queues[k].in_tree() != was_tree[k]) (queues[k].in_tree() ? to_tree : to_array)++;
      was_tree[k] = queues[k].in_tree();
      ASSERT_TRUE(queues[k].consistent(tree)) << "step " << step;
      ASSERT_EQ(queues[k].size(), model[k].size());
      // for_each walks (vruntime, insertion) order; leftmost is its first.
      std::vector<std::pair<std::pair<int64_t, uint64_t>, TaskId>> order;
      for (const auto& [queued, e] : model[k]) order.push_back({{e.vruntime, e.seq}, queued});
      std::sort(order.begin(), order.end());
      std::vector<TaskId> walked, want_order;
      queues[k].for_each(tree, [&](TaskId x) { walked.push_back(x); });
      for (const auto& o : order) want_order.push_back(o.second);
      ASSERT_EQ(walked, want_order) << "step " << step;
      ASSERT_EQ(queues[k].leftmost(), order.empty() ? kNoTask : order.front().second);
      const auto bound = static_cast<int64_t>(rng() % 26) - 1;
      const auto eligible = [&](int64_t v) { return v <= bound; };
      const TaskId want = scan(model[k], bound, kNoTask);
      ASSERT_EQ(queues[k].pick_without(tree, kNoTask, eligible), want) << "step " << step;
      if (want != kNoTask)
        for (const auto& [other, e] : model[k])
          if (other != want && e.deadline == model[k][want].deadline) ++ties;
      const auto ex = static_cast<TaskId>(rng() % kTasks);  // queued here, elsewhere, or not
      ASSERT_EQ(queues[k].pick_without(tree, ex, eligible), scan(model[k], bound, ex))
          << "step " << step << " without " << ex;
    }
  }
  EXPECT_GE(to_tree, 4);  // both forms, and both moves, were exercised
  EXPECT_GE(to_array, 4);
  EXPECT_GT(ties, 10000);
}

// By hand: vruntimes 1..4 with deadlines 9, 5, 5, 3. Up to vruntime 1 only the first is
// eligible; up to 3 the two of deadline 5 tie and the smaller vruntime (2) wins; up to 4
// the deadline 3. Equal vruntime and deadline: the earlier insertion.
TEST(EevdfTree, HandComputedPicks) {
  eevdf::DeadlineTree t;
  t.grow(9);
  TaskId root = kNoTask;
  t.insert(root, 1, 1, 9);
  t.insert(root, 2, 2, 5);
  t.insert(root, 3, 3, 5);
  t.insert(root, 4, 4, 3);
  EXPECT_EQ(t.pick(root, [](int64_t v) { return v <= 0; }), kNoTask);
  EXPECT_EQ(t.pick(root, [](int64_t v) { return v <= 1; }), 1);
  EXPECT_EQ(t.pick(root, [](int64_t v) { return v <= 3; }), 2);
  EXPECT_EQ(t.pick(root, [](int64_t v) { return v <= 4; }), 4);
  EXPECT_EQ(t.pick_without(root, 2, [](int64_t v) { return v <= 3; }), 3);
  t.insert(root, 6, 2, 5);  // the same key as 2, inserted later
  t.insert(root, 5, 2, 5);
  t.erase(root, 4);
  EXPECT_EQ(t.pick(root, [](int64_t v) { return v <= 9; }), 2);
  EXPECT_EQ(t.pick_without(root, 2, [](int64_t v) { return v <= 9; }), 6);
  t.erase(root, 2);
  EXPECT_EQ(t.pick(root, [](int64_t v) { return v <= 9; }), 6);
  EXPECT_TRUE(t.consistent(root));
  EXPECT_EQ(t.size(root), 4u);
}

}  // namespace
}  // namespace schedlab::test
