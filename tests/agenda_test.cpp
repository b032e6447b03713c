// The engine's agenda against a sorted list: items come out by time, then in the order
// they were scheduled, except the jiffy, which comes after everything else due at its
// instant; a slot holds one item that moves or goes away. Times span the whole range the
// 128-bit comparison sees (0 to the largest duration), with many equal times.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sim/event_queue.h"

namespace schedlab::test {
namespace {

struct Expected {
  Time time;
  bool jiffy;
  uint64_t order;  // scheduling order
  int32_t target;
  AgendaKind kind;
};

bool comes_first(const Expected& a, const Expected& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.jiffy != b.jiffy) return !a.jiffy;
  return a.order < b.order;
}

TEST(Agenda, PopsByTimeThenSchedulingOrderWithTheJiffyLast) {
  constexpr int kSlots = 5;
  std::mt19937_64 rng(5);
  Agenda agenda(kSlots);
  std::vector<Expected> pending;
  std::vector<int> slot_entry(kSlots, -1);  // index in `pending` of the slot's item
  uint64_t order = 0;
  Time now = 0;
  int popped = 0, equal_times = 0;
  const auto remove_slot = [&](int slot) {
    if (slot_entry[slot] < 0) return;
    pending.erase(pending.begin() + slot_entry[slot]);
    for (int& e : slot_entry)
      if (e > slot_entry[slot]) --e;
    slot_entry[slot] = -1;
  };
  for (int step = 0; step < 30000; ++step) {
    const uint64_t what = rng() % 10;
    // Near times (equal ones common), or far ones up to the longest duration.
    const Time at = rng() % 50 == 0
                        ? now + static_cast<Time>(rng() % static_cast<uint64_t>(kMaxDurationNs))
                        : now + static_cast<Time>(rng() % 4);
    if (what < 4) {
      const auto kind = rng() % 5 == 0 ? AgendaKind::kTick : AgendaKind::kTaskWake;
      const auto target = static_cast<int32_t>(rng() % 1000);
      agenda.push(at, kind, target, 7);
      pending.push_back({at, kind == AgendaKind::kTick, order++, target, kind});
    } else if (what < 6) {
      const auto slot = static_cast<int32_t>(rng() % kSlots);
      remove_slot(slot);
      agenda.set_slot(slot, at, AgendaKind::kBurstEnd);
      slot_entry[slot] = static_cast<int>(pending.size());
      pending.push_back({at, false, order++, slot, AgendaKind::kBurstEnd});
    } else if (what < 7) {
      const auto slot = static_cast<int32_t>(rng() % kSlots);
      agenda.clear_slot(slot);
      remove_slot(slot);
    } else if (!pending.empty()) {
      const auto first = std::min_element(pending.begin(), pending.end(), comes_first);
      ASSERT_FALSE(agenda.empty());
      const AgendaItem& top = agenda.top();
      ASSERT_EQ(top.time, first->time) << "step " << step;
      ASSERT_EQ(top.kind(), first->kind) << "step " << step;
      ASSERT_EQ(top.target(), first->target) << "step " << step;
      if (top.kind() != AgendaKind::kBurstEnd) {
        EXPECT_EQ(top.generation(), 7u);
      }
      for (const Expected& e : pending)
        if (&e != &*first && e.time == first->time) ++equal_times;
      const auto index = static_cast<int>(first - pending.begin());
      if (first->kind == AgendaKind::kBurstEnd) slot_entry[first->target] = -1;
      for (int& e : slot_entry)
        if (e > index) --e;
      now = first->time;
      pending.erase(first);
      agenda.pop();
      ++popped;
    }
    ASSERT_EQ(agenda.size(), pending.size());
  }
  EXPECT_GT(popped, 5000);
  EXPECT_GT(equal_times, 5000);  // ties were common, so the order among them was checked
}

}  // namespace
}  // namespace schedlab::test
