// EEVDF's timeline as a list of sorted blocks (the form deadline_queue.h uses for all but
// very long queues): entities in (vruntime, insertion) order, at most kBlock per block,
// each block remembering its earliest entry (by deadline, then vruntime, then insertion)
// and its last. The pick of pick_eevdf() (the eligible entity of earliest deadline, then
// smaller vruntime, then earlier insertion; eligibility holds for a prefix of the order)
// walks the blocks: one whose last entry is eligible is eligible whole and answers with its
// earliest; the first that is not answers for its eligible part, and the walk ends there.
// A short block (at most kLinear entries) is scanned entry by entry up to its first
// ineligible one. In a longer block each entry names the earliest of the block's entries
// up to itself, renewed from the changed place on at each insertion or erasure (the block
// is in the cache then, for its memmove), so that a binary search for the last eligible
// entry answers. A short queue is one block; a queue of a few thousand keeps its reads in
// a few contiguous blocks rather than a tree of scattered nodes. The walk is
// O(n / kBlock), so a queue longer than that goes to the tree.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "util/types.h"

namespace schedlab::eevdf {

class BlockList {
 public:
  static constexpr size_t kBlock = 64;
  static constexpr size_t kLinear = 16;  // a block this short is searched entry by entry

  // `seq` is larger than every queued entity's: after every entity of a smaller or equal
  // vruntime.
  void insert(TaskId id, int64_t vruntime, int64_t deadline, uint64_t seq) {
    ++size_;
    if (blocks_.empty()) blocks_.emplace_back();
    // The first block holding a larger vruntime, else the last.
    auto block = blocks_.begin();
    if (blocks_.size() > 1) {
      block = std::upper_bound(blocks_.begin(), blocks_.end(), vruntime,
                               [](int64_t v, const Block& b) { return v < b.last.vruntime; });
      if (block == blocks_.end()) --block;
    }
    std::vector<Entry>& e = block->entries;
    auto at = e.end();
    if (e.size() <= kLinear) {
      while (at != e.begin() && (at - 1)->vruntime > vruntime) --at;
    } else {
      at = std::upper_bound(e.begin(), e.end(), vruntime,
                            [](int64_t v, const Entry& x) { return v < x.vruntime; });
    }
    const auto from = static_cast<size_t>(at - e.begin());
    // Written field by field where it goes, and so into the block's summaries: an Entry
    // built on the stack and copied whole is read back as 16-byte loads over its 8-byte
    // stores, which the processor cannot forward.
    e.emplace_back();
    std::move_backward(e.begin() + static_cast<std::ptrdiff_t>(from), e.end() - 1, e.end());
    const Entry& entry = set(e[from], vruntime, deadline, seq, id);
    if (long_block(*block)) {
      refresh_from(*block, e.size() == kLinear + 1 ? 0 : from);  // just grew long: all
    } else if (e.size() == 1) {
      set(block->min, vruntime, deadline, seq, id);
      block->min_known = true;
    } else if (block->min_known && earlier(entry, block->min)) {
      set(block->min, vruntime, deadline, seq, id);
    }
    if (from + 1 == e.size()) set(block->last, vruntime, deadline, seq, id);
    if (e.size() > kBlock) split(block);
  }

  // Erases `id`, queued here with `vruntime` (an entity's vruntime does not change while
  // it is queued).
  void erase(TaskId id, int64_t vruntime) {
    --size_;
    // The first block whose last vruntime is not smaller; equal ones may run on into the
    // next blocks.
    auto block = blocks_.begin();
    if (blocks_.size() > 1)
      block = std::lower_bound(blocks_.begin(), blocks_.end(), vruntime,
                               [](const Block& b, int64_t v) { return b.last.vruntime < v; });
    auto at = block->entries.begin();
    for (;; at = (++block)->entries.begin()) {
      std::vector<Entry>& e = block->entries;
      if (e.size() > kLinear)
        at = std::lower_bound(e.begin(), e.end(), vruntime,
                              [](const Entry& x, int64_t v) { return x.vruntime < v; });
      while (at != e.end() && at->id != id) ++at;
      if (at != e.end()) break;
    }
    std::vector<Entry>& e = block->entries;
    const auto from = static_cast<size_t>(at - e.begin());
    e.erase(at);
    if (e.empty()) {
      if (blocks_.size() > 1) blocks_.erase(block);  // a lone block stays, for its memory
      return;
    }
    if (long_block(*block))
      refresh_from(*block, from);
    else if (block->min.id == id)
      block->min_known = false;  // found again when a pick needs it
    block->last = e.back();
    if (e.size() < kBlock / 4 && blocks_.size() > 1) merge_small(block);
  }

  // The eligible entity of earliest deadline, `excluded` (queued here or not, or kNoTask)
  // left out; kNoTask if none.
  template <typename F>
  TaskId pick_without(TaskId excluded, F&& eligible) const {
    if (size_ == 0) return kNoTask;
    const Entry* best = nullptr;
    const auto consider = [&](const Entry* e) {
      if (e && (!best || earlier(*e, *best))) best = e;
    };
    for (const Block& b : blocks_) {
      if (eligible(b.last.vruntime)) {  // eligible whole: its earliest answers for it
        if (!b.min_known) {
          b.min = *earliest_of(b, b.entries.size(), kNoTask);
          b.min_known = true;
        }
        consider(b.min.id != excluded ? &b.min : earliest_of(b, b.entries.size(), excluded));
        continue;
      }
      if (!long_block(b)) {
        for (const Entry& e : b.entries) {
          if (!eligible(e.vruntime)) break;
          if (e.id != excluded) consider(&e);
        }
        break;
      }
      const auto end = static_cast<size_t>(
          std::partition_point(b.entries.begin(), b.entries.end(),
                               [&](const Entry& e) { return eligible(e.vruntime); }) -
          b.entries.begin());
      if (end > 0) {
        const Entry& m = b.entries[b.entries[end - 1].best];
        consider(m.id != excluded ? &m : earliest_of(b, end, excluded));
      }
      break;
    }
    return best ? best->id : kNoTask;
  }

  // The entity of smallest (vruntime, insertion), kNoTask if none: the kernel's leftmost.
  TaskId leftmost() const { return size_ == 0 ? kNoTask : blocks_[0].entries.front().id; }
  // The leftmost's vruntime (its entry holds it: no read of the entity); size() > 0.
  int64_t leftmost_vruntime() const { return blocks_[0].entries.front().vruntime; }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Every entity, in (vruntime, insertion) order: f(id, vruntime, deadline, seq).
  template <typename F>
  void for_each(F&& f) const {
    for (const Block& b : blocks_)
      for (const Entry& e : b.entries) f(e.id, e.vruntime, e.deadline, e.seq);
  }
  void clear() {
    blocks_.clear();
    size_ = 0;
  }
  // The order, the blocks' summaries and the count hold (for invariant checks).
  bool consistent() const {
    size_t n = 0;
    const Entry* prev = nullptr;
    if (size_ == 0) return blocks_.size() <= 1 && (blocks_.empty() || blocks_[0].entries.empty());
    for (const Block& b : blocks_) {
      if (b.entries.empty() || b.entries.size() > kBlock) return false;
      const Entry* earliest = nullptr;  // of the block's entries so far
      for (size_t i = 0; i < b.entries.size(); ++i) {
        const Entry& e = b.entries[i];
        if (prev && !before(*prev, e)) return false;
        if (!earliest || earlier(e, *earliest)) earliest = &e;
        if (long_block(b) && (e.best > i || &b.entries[e.best] != earliest)) return false;
        prev = &e;
        ++n;
      }
      if (!same(b.last, b.entries.back())) return false;
      if (long_block(b) && !b.min_known) return false;
      if (b.min_known && !same(b.min, *earliest_of(b, b.entries.size(), kNoTask))) return false;
    }
    return n == size_;
  }

 private:
  struct Entry {
    int64_t vruntime = 0, deadline = 0;
    uint64_t seq = 0;
    TaskId id = kNoTask;
    // In a long block: where the earliest of the block's entries up to this one is.
    uint32_t best = 0;
  };
  struct Block {
    std::vector<Entry> entries;  // sorted by (vruntime, seq)
    // The earliest by (deadline, vruntime, seq), when known (always in a long block): the
    // pick erases its choice, often the earliest, and a short block only partly eligible
    // (a short queue's usual case) never reads it, so it is found again only when a pick
    // needs it.
    mutable Entry min;
    mutable bool min_known = false;
    Entry last;  // entries.back(), here so that searching the blocks reads no block's entries
  };

  static bool long_block(const Block& b) { return b.entries.size() > kLinear; }
  static const Entry& set(Entry& to, int64_t vruntime, int64_t deadline, uint64_t seq, TaskId id) {
    to.vruntime = vruntime;
    to.deadline = deadline;
    to.seq = seq;
    to.id = id;
    return to;
  }
  static bool before(const Entry& a, const Entry& b) {
    return a.vruntime != b.vruntime ? a.vruntime < b.vruntime : a.seq < b.seq;
  }
  static bool earlier(const Entry& a, const Entry& b) {
    if (a.deadline != b.deadline) return a.deadline < b.deadline;
    return before(a, b);
  }
  static bool same(const Entry& a, const Entry& b) {
    return a.id == b.id && a.vruntime == b.vruntime && a.deadline == b.deadline && a.seq == b.seq;
  }
  // The earliest of the block's first `end` entries but `excluded`; nullptr if none.
  static const Entry* earliest_of(const Block& b, size_t end, TaskId excluded) {
    const Entry* best = nullptr;
    for (size_t i = 0; i < end; ++i) {
      const Entry& e = b.entries[i];
      if (e.id != excluded && (!best || earlier(e, *best))) best = &e;
    }
    return best;
  }
  // A long block's entries from `from` on name their prefix's earliest again (those before
  // are unchanged), and its earliest follows.
  static void refresh_from(Block& b, size_t from) {
    std::vector<Entry>& e = b.entries;
    for (size_t i = from; i < e.size(); ++i)
      e[i].best =
          i > 0 && !earlier(e[i], e[e[i - 1].best]) ? e[i - 1].best : static_cast<uint32_t>(i);
    b.min = e[e.back().best];
    b.min_known = true;
  }
  // A block's summaries after its entries changed wholesale.
  static void renew(Block& b) {
    b.last = b.entries.back();
    if (long_block(b))
      refresh_from(b, 0);
    else
      b.min_known = false;
  }
  void split(std::vector<Block>::iterator block) {
    Block upper;
    const auto half = block->entries.begin() + static_cast<std::ptrdiff_t>(kBlock / 2);
    upper.entries.assign(half, block->entries.end());
    block->entries.erase(half, block->entries.end());
    renew(*block);
    renew(upper);
    blocks_.insert(block + 1, std::move(upper));
  }
  // A block below a quarter full joins a neighbour that has room for it.
  void merge_small(std::vector<Block>::iterator block) {
    const auto fits = [&](std::vector<Block>::iterator other) {
      return block->entries.size() + other->entries.size() <= kBlock;
    };
    auto first = blocks_.end();
    if (block + 1 != blocks_.end() && fits(block + 1))
      first = block;
    else if (block != blocks_.begin() && fits(block - 1))
      first = block - 1;
    if (first == blocks_.end()) return;
    const auto second = first + 1;
    first->entries.insert(first->entries.end(), second->entries.begin(), second->entries.end());
    renew(*first);
    blocks_.erase(second);
  }

  std::vector<Block> blocks_;  // in order: every entry of a block before the next block's
  size_t size_ = 0;
};

}  // namespace schedlab::eevdf
