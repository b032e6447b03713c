// EEVDF's pick in O(log n): the queued entities ordered by (vruntime, insertion), each
// node caching the entity of earliest deadline in its subtree, as 6.6's augmented rbtree
// caches min_deadline (kernel/sched/fair.c, __pick_eevdf and min_deadline_update).
// Eligibility (vruntime <= V) holds for a prefix of that order, so the earliest deadline
// among the eligible is found on one path from the root: wherever a node is eligible, its
// whole left subtree is, and its cached minimum stands for it.
//
// Ties: the earlier deadline, then the smaller vruntime, then the earlier insertion (the
// leftmost of equal keys, where the kernel's tree puts the older entity).
//
// A treap (priorities hashed from the insertion number) over nodes indexed by task id,
// one root per run queue. The pick does not depend on the tree's shape, only on the keys.
#pragma once

#include <cstdint>
#include <vector>

#include "util/types.h"

namespace schedlab::eevdf {

class DeadlineTree {
 public:
  // Room for a task's node, the first time its id is seen.
  void grow(TaskId id) {
    if (static_cast<size_t>(id) >= nodes_.size()) nodes_.resize(static_cast<size_t>(id) + 1);
  }

  // Inserts `id` under `root` with insertion number `seq`, larger than those of the
  // entities of equal vruntime already there (the queue numbers its insertions; an entity
  // moving in from the other form keeps its number).
  void insert_as(TaskId& root, TaskId id, int64_t vruntime, int64_t deadline, uint64_t seq) {
    Node& n = nodes_[id];
    n = Node{vruntime, deadline, seq,     deadline, vruntime,
             seq,      kNoTask,  kNoTask, id,       static_cast<uint32_t>(priority_of(seq) >> 32)};
    insert_at(root, id);
  }
  // Empties the tree under `root` into `out`, in key order: f(id, vruntime, deadline, seq).
  template <typename F>
  void drain(TaskId& root, F&& out) {
    drain_at(root, out);
    root = kNoTask;
  }
  // Erases `id`; the key and deadline it was inserted with are the ones it is found by.
  void erase(TaskId& root, TaskId id) {
    erase_at(root, id);
    nodes_[id].best = kNoTask;  // a queued node's minimum is at worst itself
  }
  // The entity of earliest deadline among those for which eligible(vruntime) holds (a
  // prefix of the vruntime order), `excluded` (in the tree, or not) left out; kNoTask if
  // none. A cached minimum that is `excluded` is replaced by the minimum of its subtree
  // without it (one more path, down to `excluded`).
  template <typename F>
  TaskId pick_without(TaskId root, TaskId excluded, F&& eligible) const {
    Min best;
    for (TaskId x = root; x != kNoTask;) {
      const Node& n = nodes_[x];
      if (!eligible(n.vruntime)) {
        x = n.left;
        continue;
      }
      if (n.left != kNoTask) best = better(best, best_without(n.left, excluded));
      if (x != excluded) best = better(best, self(x));
      x = n.right;
    }
    return best.id;
  }
  int64_t vruntime_of(TaskId id) const { return nodes_[id].vruntime; }
  // The entity of smallest (vruntime, insertion); kNoTask for an empty tree.
  TaskId leftmost(TaskId root) const {
    if (root == kNoTask) return kNoTask;
    while (nodes_[root].left != kNoTask) root = nodes_[root].left;
    return root;
  }
  // Every entity under `root`, in key order.
  template <typename F>
  void for_each(TaskId root, F&& f) const {
    if (root == kNoTask) return;
    for_each(nodes_[root].left, f);
    f(root);
    for_each(nodes_[root].right, f);
  }
  // The subtree minimum of every node is right and the order holds: for invariant checks.
  bool consistent(TaskId root) const { return check(root, nullptr, nullptr) >= 0; }
  size_t size(TaskId root) const {
    return root == kNoTask ? 0 : 1 + size(nodes_[root].left) + size(nodes_[root].right);
  }

 private:
  // An entity and the keys that rank it: deadline, vruntime, insertion.
  struct Min {
    TaskId id = kNoTask;
    int64_t deadline = 0, vruntime = 0;
    uint64_t seq = 0;
  };
  // One cache line: the node's keys, and its subtree's minimum with that minimum's keys
  // (pull() and the pick then read no third node).
  struct alignas(64) Node {
    int64_t vruntime = 0, deadline = 0;
    uint64_t seq = 0;
    int64_t best_deadline = 0, best_vruntime = 0;
    uint64_t best_seq = 0;
    TaskId left = kNoTask, right = kNoTask;
    TaskId best = kNoTask;  // earliest deadline in this subtree; kNoTask when not queued
    uint32_t priority = 0;
  };
  static_assert(sizeof(Node) == 64);

  // splitmix64: a priority that looks random but depends only on the insertion number.
  static uint64_t priority_of(uint64_t seq) {
    uint64_t z = seq + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint32_t priority(TaskId x) const { return nodes_[x].priority; }
  bool key_before(TaskId a, TaskId b) const {
    const Node &x = nodes_[a], &y = nodes_[b];
    return x.vruntime != y.vruntime ? x.vruntime < y.vruntime : x.seq < y.seq;
  }
  Min self(TaskId x) const {
    const Node& n = nodes_[x];
    return {x, n.deadline, n.vruntime, n.seq};
  }
  Min subtree_best(TaskId t) const {
    if (t == kNoTask) return {};
    const Node& n = nodes_[t];
    return {n.best, n.best_deadline, n.best_vruntime, n.best_seq};
  }
  static Min better(const Min& a, const Min& b) {
    if (a.id == kNoTask) return b;
    if (b.id == kNoTask) return a;
    if (a.deadline != b.deadline) return a.deadline < b.deadline ? a : b;
    if (a.vruntime != b.vruntime) return a.vruntime < b.vruntime ? a : b;
    return a.seq < b.seq ? a : b;
  }
  // The earliest deadline in subtree `t` with `excluded` left out. Only the subtrees on
  // `excluded`'s path can cache it, so the walk follows that path.
  Min best_without(TaskId t, TaskId excluded) const {
    Min best;
    while (t != kNoTask) {
      const Node& n = nodes_[t];
      if (n.best != excluded) return better(best, subtree_best(t));
      if (t == excluded) return better(better(best, subtree_best(n.left)), subtree_best(n.right));
      best = better(best, self(t));
      if (key_before(excluded, t)) {
        best = better(best, subtree_best(n.right));
        t = n.left;
      } else {
        best = better(best, subtree_best(n.left));
        t = n.right;
      }
    }
    return best;
  }
  // The subtree minimum of x from its own keys and its children's cached minima.
  Min computed_best(TaskId x) const {
    const Node& n = nodes_[x];
    Min best = self(x);
    if (n.left != kNoTask) best = better(subtree_best(n.left), best);
    if (n.right != kNoTask) best = better(best, subtree_best(n.right));
    return best;
  }
  void pull(TaskId x) {
    const Min best = computed_best(x);
    Node& n = nodes_[x];
    n.best = best.id;
    n.best_deadline = best.deadline;
    n.best_vruntime = best.vruntime;
    n.best_seq = best.seq;
  }
  // Splits `t` into the keys before `id`'s (l) and the rest (r).
  void split(TaskId t, TaskId id, TaskId& l, TaskId& r) {
    if (t == kNoTask) {
      l = r = kNoTask;
      return;
    }
    if (key_before(t, id)) {
      split(nodes_[t].right, id, nodes_[t].right, r);
      l = t;
    } else {
      split(nodes_[t].left, id, l, nodes_[t].left);
      r = t;
    }
    pull(t);
  }
  // Joins two trees, every key of l before every key of r.
  TaskId merge(TaskId l, TaskId r) {
    if (l == kNoTask) return r;
    if (r == kNoTask) return l;
    if (priority(l) > priority(r)) {
      nodes_[l].right = merge(nodes_[l].right, r);
      pull(l);
      return l;
    }
    nodes_[r].left = merge(l, nodes_[r].left);
    pull(r);
    return r;
  }
  template <typename F>
  void drain_at(TaskId t, F& out) {
    if (t == kNoTask) return;
    Node& n = nodes_[t];
    drain_at(n.left, out);
    out(t, n.vruntime, n.deadline, n.seq);
    const TaskId right = n.right;
    n.best = kNoTask;
    drain_at(right, out);
  }
  void insert_at(TaskId& t, TaskId id) {
    if (t == kNoTask) {
      t = id;
      return;
    }
    if (priority(id) > priority(t)) {
      split(t, id, nodes_[id].left, nodes_[id].right);
      pull(id);
      t = id;
      return;
    }
    insert_at(key_before(id, t) ? nodes_[t].left : nodes_[t].right, id);
    pull(t);
  }
  void erase_at(TaskId& t, TaskId id) {
    if (t == id) {
      t = merge(nodes_[id].left, nodes_[id].right);
      return;
    }
    erase_at(key_before(id, t) ? nodes_[t].left : nodes_[t].right, id);
    pull(t);
  }
  // The subtree's size if its order, heap and minima hold, else -1.
  long check(TaskId t, const TaskId* lo, const TaskId* hi) const {
    if (t == kNoTask) return 0;
    const Node& n = nodes_[t];
    if ((lo && !key_before(*lo, t)) || (hi && !key_before(t, *hi))) return -1;
    for (TaskId c : {n.left, n.right})
      if (c != kNoTask && priority(c) > priority(t)) return -1;
    const Min best = computed_best(t);
    if (best.id != n.best || best.deadline != n.best_deadline || best.vruntime != n.best_vruntime ||
        best.seq != n.best_seq)
      return -1;
    const long l = check(n.left, lo, &t), r = check(n.right, &t, hi);
    return l < 0 || r < 0 ? -1 : 1 + l + r;
  }

  std::vector<Node> nodes_;
};

}  // namespace schedlab::eevdf
