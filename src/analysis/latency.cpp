#include "analysis/latency.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace schedlab {

int LatencyStats::group_of(uint64_t v) {
  if (v < kGroupSize) return 0;
  const int msb = 63 - std::countl_zero(v);
  return msb - kSubBits + 1;
}

size_t LatencyStats::sub_of(uint64_t v, int group) {
  if (group == 0) return static_cast<size_t>(v);
  return static_cast<size_t>((v >> (group - 1)) & (kGroupSize - 1));
}

int64_t LatencyStats::bucket_floor(int group, size_t sub) {
  if (group == 0) return static_cast<int64_t>(sub);
  return static_cast<int64_t>((kGroupSize | sub) << (group - 1));
}

size_t LatencyStats::group_offset(int group) const {
  const uint64_t below = group == 0 ? 0 : groups_ & ((uint64_t{1} << group) - 1);
  return static_cast<size_t>(std::popcount(below)) * kGroupSize;
}

void LatencyStats::count_in_bucket(uint64_t v, uint64_t n) {
  const int g = group_of(v);
  const size_t at = group_offset(g);
  if (!(groups_ & (uint64_t{1} << g))) {  // a new power of two: room for its buckets
    groups_ |= uint64_t{1} << g;
    counts_.insert(counts_.begin() + static_cast<long>(at), kGroupSize, 0);
  }
  uint32_t& c = counts_[at + sub_of(v, g)];
  const uint64_t sum = c + n;
  c = static_cast<uint32_t>(std::min<uint64_t>(sum, std::numeric_limits<uint32_t>::max()));
}

void LatencyStats::spill() {
  spilled_ = true;
  for (int64_t v : exact_) count_in_bucket(static_cast<uint64_t>(v), 1);
  exact_.clear();
  exact_.shrink_to_fit();
}

void LatencyStats::add(int64_t v) {
  if (v < 0) v = 0;
  min_ = count_ ? std::min(min_, v) : v;
  ++count_;
  max_ = std::max(max_, v);
  if (spilled_) {
    count_in_bucket(static_cast<uint64_t>(v), 1);
  } else {
    exact_.push_back(v);
    if (exact_.size() > kExactLimit) spill();
  }
}

void LatencyStats::merge(const LatencyStats& other) {
  if (other.count_ == 0) return;
  if (!other.spilled_) {
    for (int64_t v : other.exact_) add(v);
    return;
  }
  if (!spilled_) spill();
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  size_t at = 0;
  for (int g = 0; g < 64; ++g) {
    if (!(other.groups_ & (uint64_t{1} << g))) continue;
    for (size_t sub = 0; sub < kGroupSize; ++sub)
      if (const uint32_t n = other.counts_[at + sub])
        count_in_bucket(static_cast<uint64_t>(bucket_floor(g, sub)), n);
    at += kGroupSize;
  }
}

uint64_t LatencyStats::rank_of(double p) const {
  return std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_))), 1,
                              count_);
}

int64_t LatencyStats::percentile(double p) const {
  int64_t v = 0;
  percentiles(std::span(&p, 1), std::span(&v, 1));
  return v;
}

void LatencyStats::percentiles(std::span<const double> ps, std::span<int64_t> out) const {
  if (count_ == 0 || ps.empty()) {
    std::fill(out.begin(), out.end(), 0);
    return;
  }
  if (!std::is_sorted(ps.begin(), ps.end())) {
    for (size_t i = 0; i < ps.size(); ++i) out[i] = percentile(ps[i]);
    return;
  }
  if (!spilled_) {
    // Each selection leaves the larger values after its rank: the next, higher rank is
    // selected among those only.
    std::vector<int64_t> values = exact_;
    auto from = values.begin();
    for (size_t i = 0; i < ps.size(); ++i) {
      const auto at = values.begin() + static_cast<long>(rank_of(ps[i]) - 1);
      std::nth_element(from, at, values.end());
      from = at;
      out[i] = *at;
    }
    return;
  }
  size_t at = 0, next = 0;
  uint64_t seen = 0, want = rank_of(ps[0]);
  for (int g = 0; g < 64; ++g) {
    if (!(groups_ & (uint64_t{1} << g))) continue;
    for (size_t sub = 0; sub < kGroupSize; ++sub) {
      seen += counts_[at + sub];
      for (; seen >= want; want = rank_of(ps[next])) {
        out[next] = std::clamp(bucket_floor(g, sub), min_, max_);
        if (++next == ps.size()) return;
      }
    }
    at += kGroupSize;
  }
  for (; next < ps.size(); ++next) out[next] = max_;
}

}  // namespace schedlab
