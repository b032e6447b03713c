#include "host/busy_loop.h"

namespace schedlab {

// The asm statement with a memory clobber keeps every turn (the optimiser may not drop or
// merge them); the alignment keeps the loop in one 64-byte line (see the header).
[[gnu::noinline, gnu::aligned(64)]] void busy_loop(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) asm volatile("" ::: "memory");
}

}  // namespace schedlab
