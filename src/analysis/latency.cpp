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

int64_t LatencyStats::percentile(double p) const {
  if (count_ == 0) return 0;
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_))));
  if (!spilled_) {
    std::vector<int64_t> sorted = exact_;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(rank - 1), sorted.end());
    return sorted[rank - 1];
  }
  uint64_t seen = 0;
  size_t at = 0;
  for (int g = 0; g < 64; ++g) {
    if (!(groups_ & (uint64_t{1} << g))) continue;
    for (size_t sub = 0; sub < kGroupSize; ++sub) {
      seen += counts_[at + sub];
      if (seen >= rank) return std::clamp(bucket_floor(g, sub), min_, max_);
    }
    at += kGroupSize;
  }
  return max_;
}

}  // namespace schedlab
