// A set of CPUs (the kernel's struct cpumask) for machines of up to kMaxCpus CPUs.
//
// The mask is as long as the highest CPU it has held, in 64-bit words, and every operation
// touches only those words: a 64-CPU machine's masks are one word, whatever the limit.
// Four words (256 CPUs) live inline; a longer mask lives on the heap. Missing words read as
// zero, so masks of different lengths compare and combine as the sets they are.
// Masks of one word (machines of up to 64 CPUs) take a fast path in each operation that
// reads its word directly, with no loop and no choice of buffer; the first inline word is
// zero whenever the mask is empty of words, so a mask of no words is a zero word there.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace schedlab {

class CpuMask {
 public:
  CpuMask() noexcept {}
  CpuMask(const CpuMask& o) { copy_from(o); }
  CpuMask(CpuMask&& o) noexcept { take(o); }
  CpuMask& operator=(const CpuMask& o) {
    if (this != &o) {
      if (o.n_ > n_ || o.n_ <= kInlineWords || n_ <= kInlineWords) {
        release();
        copy_from(o);
      } else {  // both on the heap and ours is long enough: keep our buffer
        std::copy_n(o.heap_, o.n_, heap_);
        std::fill(heap_ + o.n_, heap_ + n_, 0);
      }
    }
    return *this;
  }
  CpuMask& operator=(CpuMask&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~CpuMask() { release(); }

  bool test(size_t cpu) const {
    const size_t w = cpu >> 6;
    return w < n_ && ((words()[w] >> (cpu & 63)) & 1) != 0;
  }
  bool operator[](size_t cpu) const { return test(cpu); }
  CpuMask& set(size_t cpu) {
    grow(cpu / 64 + 1);
    words()[cpu >> 6] |= uint64_t{1} << (cpu & 63);
    return *this;
  }
  CpuMask& set(size_t cpu, bool value) { return value ? set(cpu) : reset(cpu); }
  CpuMask& reset(size_t cpu) {
    if ((cpu >> 6) < n_) words()[cpu >> 6] &= ~(uint64_t{1} << (cpu & 63));
    return *this;
  }
  CpuMask& reset() {
    std::fill_n(words(), n_, 0);
    return *this;
  }

  size_t count() const {
    if (n_ <= 1) return static_cast<size_t>(std::popcount(inline_[0]));
    size_t c = 0;
    for (const uint64_t w : span()) c += static_cast<size_t>(std::popcount(w));
    return c;
  }
  bool any() const {
    if (n_ <= 1) return inline_[0] != 0;
    for (const uint64_t w : span())
      if (w != 0) return true;
    return false;
  }
  bool none() const { return !any(); }
  // One past the highest CPU the mask can hold now; find_first/find_next return it when
  // there is no such CPU (as std::bitset's _Find_first and _Find_next return size()).
  size_t size() const { return size_t{n_} * 64; }
  size_t find_first() const {
    if (n_ <= 1)
      return inline_[0] != 0 ? static_cast<size_t>(std::countr_zero(inline_[0])) : size();
    return scan_from(0);
  }
  // The lowest CPU above `cpu`.
  size_t find_next(size_t cpu) const {
    ++cpu;
    const size_t w = cpu >> 6;
    if (w >= n_) return size();
    const uint64_t rest = words()[w] & (~uint64_t{0} << (cpu & 63));
    return rest != 0 ? w * 64 + static_cast<size_t>(std::countr_zero(rest)) : scan_from(w + 1);
  }
  // Calls fn(cpu) for each CPU in increasing order, a word at a time; fn must not change
  // this mask.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    if (n_ <= 1) {
      for (uint64_t bits = inline_[0]; bits != 0; bits &= bits - 1)
        fn(static_cast<int32_t>(std::countr_zero(bits)));
      return;
    }
    const uint64_t* w = words();
    for (uint32_t i = 0; i < n_; ++i)
      for (uint64_t bits = w[i]; bits != 0; bits &= bits - 1)
        fn(static_cast<int32_t>(i * 64 + static_cast<uint32_t>(std::countr_zero(bits))));
  }
  // Whether the two masks share a CPU, without building their intersection.
  bool intersects(const CpuMask& o) const {
    if (n_ <= 1 && o.n_ <= 1) return (inline_[0] & o.inline_[0]) != 0;
    const uint64_t* a = words();
    const uint64_t* b = o.words();
    for (uint32_t i = 0, n = std::min(n_, o.n_); i < n; ++i)
      if ((a[i] & b[i]) != 0) return true;
    return false;
  }

  static constexpr size_t kNone = SIZE_MAX;
  // The lowest CPU in this mask, b and c, or kNone.
  size_t first_common(const CpuMask& b, const CpuMask& c) const {
    if (n_ <= 1 && b.n_ <= 1 && c.n_ <= 1) {
      const uint64_t w = inline_[0] & b.inline_[0] & c.inline_[0];
      return w != 0 ? static_cast<size_t>(std::countr_zero(w)) : kNone;
    }
    const uint64_t* x = words();
    const uint64_t* y = b.words();
    const uint64_t* z = c.words();
    for (uint32_t i = 0, n = std::min({n_, b.n_, c.n_}); i < n; ++i)
      if (const uint64_t w = x[i] & y[i] & z[i]; w != 0)
        return size_t{i} * 64 + static_cast<size_t>(std::countr_zero(w));
    return kNone;
  }

  CpuMask& operator&=(const CpuMask& o) {
    if (n_ <= 1) {  // a longer o's other words meet nothing here
      inline_[0] &= o.words()[0];
      return *this;
    }
    uint64_t* a = words();
    const uint64_t* b = o.words();
    const uint32_t common = std::min(n_, o.n_);
    for (uint32_t i = 0; i < common; ++i) a[i] &= b[i];
    std::fill(a + common, a + n_, 0);
    return *this;
  }
  CpuMask& operator|=(const CpuMask& o) {
    if (n_ <= 1 && o.n_ <= 1) {
      inline_[0] |= o.inline_[0];
      n_ = std::max(n_, o.n_);
      return *this;
    }
    grow(o.n_);
    uint64_t* a = words();
    const uint64_t* b = o.words();
    for (uint32_t i = 0; i < o.n_; ++i) a[i] |= b[i];
    return *this;
  }
  friend CpuMask operator&(const CpuMask& a, const CpuMask& b) {
    CpuMask r;
    if (a.n_ <= 1 || b.n_ <= 1) {  // at most one word in common
      const uint32_t n = std::min(a.n_, b.n_);
      r.inline_[0] = n != 0 ? a.words()[0] & b.words()[0] : 0;
      r.n_ = n;
      return r;
    }
    const uint32_t n = std::min(a.n_, b.n_);
    r.grow(n);
    uint64_t* out = r.words();
    const uint64_t* x = a.words();
    const uint64_t* y = b.words();
    for (uint32_t i = 0; i < n; ++i) out[i] = x[i] & y[i];
    return r;
  }
  friend CpuMask operator|(const CpuMask& a, const CpuMask& b) {
    const CpuMask& longer = a.n_ >= b.n_ ? a : b;
    CpuMask r = longer;
    r |= (&longer == &a ? b : a);
    return r;
  }
  friend bool operator==(const CpuMask& a, const CpuMask& b) {
    if (a.n_ <= 1 && b.n_ <= 1) return a.inline_[0] == b.inline_[0];
    const uint32_t common = std::min(a.n_, b.n_);
    const CpuMask& longer = a.n_ >= b.n_ ? a : b;
    if (!std::equal(a.words(), a.words() + common, b.words())) return false;
    return std::all_of(longer.words() + common, longer.words() + longer.n_,
                       [](uint64_t w) { return w == 0; });
  }

  // The CPUs 0..n-1.
  static CpuMask first_n(size_t n) {
    CpuMask m;
    m.grow((n + 63) / 64);
    uint64_t* w = m.words();
    std::fill_n(w, n / 64, ~uint64_t{0});
    if (n % 64 != 0) w[n / 64] = (uint64_t{1} << (n % 64)) - 1;
    return m;
  }

 private:
  static constexpr uint32_t kInlineWords = 4;

  struct Span {
    const uint64_t* b;
    const uint64_t* e;
    const uint64_t* begin() const { return b; }
    const uint64_t* end() const { return e; }
  };
  Span span() const { return {words(), words() + n_}; }
  uint64_t* words() { return n_ <= kInlineWords ? inline_ : heap_; }
  const uint64_t* words() const { return n_ <= kInlineWords ? inline_ : heap_; }

  // The lowest CPU in words w and above.
  size_t scan_from(size_t w) const {
    const uint64_t* a = words();
    for (; w < n_; ++w)
      if (a[w] != 0) return w * 64 + static_cast<size_t>(std::countr_zero(a[w]));
    return size();
  }
  // Lengthens the mask to n words (new words zero).
  void grow(size_t n) {
    if (n <= n_) return;
    const auto want = static_cast<uint32_t>(n);
    if (want <= kInlineWords) {
      for (uint32_t i = n_; i < want; ++i) inline_[i] = 0;
    } else {
      auto* fresh = new uint64_t[want];
      std::copy_n(words(), n_, fresh);
      std::fill(fresh + n_, fresh + want, 0);
      if (n_ > kInlineWords) delete[] heap_;
      heap_ = fresh;
    }
    n_ = want;
  }
  // Inline words are copied whole (a fixed 32 bytes, cheaper than a copy of n_ words);
  // those past n_ are never read before grow() zeroes them.
  void copy_from(const CpuMask& o) {
    if (o.n_ > kInlineWords) {
      heap_ = new uint64_t[o.n_];
      std::copy_n(o.heap_, o.n_, heap_);
    } else {
      std::memcpy(inline_, o.inline_, sizeof inline_);
    }
    n_ = o.n_;
  }
  void take(CpuMask& o) noexcept {
    std::memcpy(inline_, o.inline_, sizeof inline_);  // the heap pointer, if it is one
    n_ = o.n_;
    o.n_ = 0;
    o.inline_[0] = 0;
  }
  void release() noexcept {
    if (n_ > kInlineWords) delete[] heap_;
    n_ = 0;
    inline_[0] = 0;
  }

  uint32_t n_ = 0;  // words in use
  union {
    uint64_t inline_[kInlineWords] = {};
    uint64_t* heap_;
  };
};

}  // namespace schedlab
