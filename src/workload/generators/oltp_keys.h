// The row ids sysbench 0.4's OLTP test draws (GET_RANDOM_ID: rnd_func_uniform,
// rnd_func_gaussian, rnd_func_special in sysbench/tests/oltp/sb_oltp.c, akopytov/sysbench
// branch 0.4 @db2d315f743b, 0.4.12), with its integer arithmetic, and where a row lies in
// the table's pages. docs/workloads/oltp.md has the rules and the mass they give.
#pragma once

#include <algorithm>
#include <cstdint>

#include "util/rng.h"

namespace schedlab::oltp {

// sb_rnd() is lrand48() % 0x3fffffff (sysbench.h): a raw draw lies in [0, kSbRndBound).
inline constexpr uint64_t kSbRndBound = 0x3fffffff;

enum class KeyDist { kUniform, kGaussian, kSpecial };

struct KeySettings {
  KeyDist dist = KeyDist::kSpecial;  // --oltp-dist-type
  int64_t table_size = 10'000;       // --oltp-table-size
  int64_t iter = 12;                 // --oltp-dist-iter
  int64_t pct = 1;                   // --oltp-dist-pct
  int64_t res = 75;                  // --oltp-dist-res, below 100 (sysbench divides by 100 - res)
};

// One GET_RANDOM_ID() from the raw draws `raw()` yields, in sysbench's order and with its
// integer divisions:
//   uniform   1 + raw mod T;
//   gaussian  the integer mean of `iter` uniform draws;
//   special   r = 1 + raw mod (T * (100 / (100 - res))); r <= T: a fresh gaussian draw;
//             else (r mod max(1, T * pct / 100)) + T / 2 - T * pct / 200.
template <class Raw>
int64_t draw_key(const KeySettings& k, Raw&& raw) {
  const auto t = static_cast<uint64_t>(k.table_size);
  auto uniform = [&] { return static_cast<int64_t>(1 + raw() % t); };
  auto gaussian = [&] {
    int64_t sum = 0;
    for (int64_t i = 0; i < k.iter; ++i) sum += uniform();
    return sum / k.iter;
  };
  switch (k.dist) {
    case KeyDist::kUniform:
      return uniform();
    case KeyDist::kGaussian:
      return gaussian();
    case KeyDist::kSpecial:
      break;
  }
  const uint64_t range_size = t * static_cast<uint64_t>(100 / (100 - k.res));
  const uint64_t r = 1 + raw() % range_size;
  if (r <= t) return gaussian();
  const uint64_t d = std::max<uint64_t>(1, t * static_cast<uint64_t>(k.pct) / 100);
  return static_cast<int64_t>(r % d + t / 2 - t * static_cast<uint64_t>(k.pct) / 200);
}

// A range query's first id as get_request_complex clamps it: moved back to T - size when it
// would run past the table, and to at least 1.
inline int64_t range_start(int64_t id, int64_t table_size, int64_t size) {
  if (id + size > table_size) id = table_size - size;
  return std::max<int64_t>(id, 1);
}

// The page of `pages` that row `id` lies on, rows spread evenly in id order (ids outside
// 1..T, which sysbench can produce at the edges, go to the first or last page).
inline int32_t page_of(int64_t id, int64_t table_size, int64_t pages) {
  const int64_t row = std::clamp<int64_t>(id, 1, table_size) - 1;
  return static_cast<int32_t>(row * pages / table_size);
}

// The generator that draws the ids of client `client`'s statement at `position`: seeded
// from the scenario's seed and both numbers, so a run is deterministic and each statement
// has its own stream.
inline Rng key_rng(uint64_t seed, uint64_t client, uint64_t position) {
  uint64_t x =
      seed ^ (0x9e3779b97f4a7c15ULL * (client + 1)) ^ (0xbf58476d1ce4e5b9ULL * (position + 1));
  x = (x ^ (x >> 30)) * 0x94d049bb133111ebULL;  // splitmix64's finaliser
  return Rng(x ^ (x >> 31));
}

}  // namespace schedlab::oltp
