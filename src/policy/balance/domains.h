// Scheduling domains built from the machine topology, as kernel/sched.c's
// build_sched_domains builds them from include/linux/topology.h's SD_*_INIT (2.6.22 to
// 2.6.32) and kernel/sched/topology.c's sd_init() (6.x). docs/algorithms/balancing.md.
//
// Levels, bottom up: SMT (hardware threads of a core), MC (cores sharing the last-level
// cache), CPU (the whole machine; no NUMA level is modelled). A level whose span is one
// CPU or equals its child's span is dropped, as sd_degenerate/sd_parent_degenerate do.
// The groups of a level are its child's spans (single CPUs at the lowest level).
//
// The groups of one span are built once and shared by the span's CPUs, as the kernel's
// sched_group lists are: each CPU keeps only where its own group stands in the list, so
// memory grows with the CPUs, not with their square (a 4,096-CPU machine's lowest level
// would otherwise hold 4,096 x 4,096 masks).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "machine/machine.h"
#include "util/types.h"

namespace schedlab::balance {

// SD_* flags (symbolic; the kernel's bit values differ between releases).
enum SdFlag : uint32_t {
  kSdLoadBalance = 1u << 0,
  kSdBalanceNewidle = 1u << 1,
  kSdBalanceExec = 1u << 2,
  kSdBalanceFork = 1u << 3,
  kSdWakeAffine = 1u << 4,
  kSdWakeBalance = 1u << 5,  // 2.6.31: passive balancing at wake-up
  kSdShareCpupower = 1u << 6,
  kSdSharePkgResources = 1u << 7,
  kSdPreferSibling = 1u << 8,  // 2.6.32
  kSdWakeIdle = 1u << 9,       // 2.6.23: wake on an idle CPU of the domain
};

enum class Level : uint8_t { kSmt, kMc, kCpu };
const char* level_name(Level l);

// The constant part of a domain (SD_SIBLING_INIT, SD_MC_INIT, SD_CPU_INIT), written with
// designated initialisers: {.level = Level::kMc, .flags = ..., .imbalance_pct = 125}.
struct DomainTemplate {
  Level level = Level::kCpu;
  uint32_t flags = 0;
  int min_interval_ms = 1;
  int max_interval_ms = 4;
  int busy_factor = 64;
  int imbalance_pct = 125;
  int cache_nice_tries = 0;
  // cpu_load[] indices per kind of balancing (0: the instantaneous load)
  int busy_idx = 0;
  int idle_idx = 0;
  int newidle_idx = 0;
  int wake_idx = 0;
  int forkexec_idx = 0;
};

// The SMT, MC and CPU levels in the shape SD_SIBLING_INIT, SD_MC_INIT and SD_CPU_INIT
// have from 2.6.22 to 2.6.31, with `common` on every level: SMT siblings balance every
// 1-2 ms at a 110 % imbalance and share CPU power; MC shares package resources; MC and CPU
// try a cache-hot task once and read cpu_load[2] when busy and [1] for wake and fork/exec.
// A release adds its own differences to the result.
std::vector<DomainTemplate> sibling_mc_cpu_levels(uint32_t common);

// Switches a domain flag a user may flip (--param SD_BALANCE_NEWIDLE=0) on every level,
// when it differs from the MC level's default; SD_BALANCE_NEWIDLE and SD_PREFER_SIBLING
// are switched on the MC and CPU levels only (the SMT level keeps its own).
void switch_domain_flag(std::vector<DomainTemplate>& levels, uint32_t flag, bool on);

// The groups of one span at one level, in the order of their lowest CPUs.
struct GroupList {
  std::vector<CpuMask> masks;
  std::vector<int64_t> power;  // cpu_power per group, SCHED_LOAD_SCALE = one CPU
  // When every group is one CPU (the lowest level, or above levels that degenerated), the
  // CPU of each group, so that a walk over the groups reads CPUs without scanning masks
  // (a flat 1,024-CPU machine's top level has 1,024 of them); empty otherwise.
  std::vector<CpuId> cpu_of;
  int64_t min_power = 0;  // the least of `power`
};

// One CPU's domain at one level, with its balancing state.
struct Domain {
  DomainTemplate t;
  CpuMask span;
  // The groups as this CPU sees them: starting with its own, then going round in CPU
  // order. That is the shared list rotated to start at `first`, unless the topology's
  // numbering interleaves groups so that it is not a rotation; then `order` spells it out.
  std::shared_ptr<const GroupList> list;
  uint32_t first = 0;
  std::vector<uint32_t> order;
  // balancing state (struct sched_domain)
  int64_t balance_interval_ms = 1;
  int64_t last_balance_jiffy = 0;
  int nr_balance_failed = 0;
  bool has(uint32_t flag) const { return (t.flags & flag) != 0; }
  size_t group_count() const { return list->masks.size(); }
  // The g-th group of this CPU's round, and its power.
  const CpuMask& group(size_t g) const { return list->masks[list_index(g)]; }
  int64_t group_power(size_t g) const { return list->power[list_index(g)]; }
  // Where the g-th group of this CPU's round sits in the list.
  size_t list_index(size_t g) const {
    if (!order.empty()) return order[g];
    const size_t i = first + g, n = list->masks.size();
    return i >= n ? i - n : i;
  }
};

enum class GroupPower : uint8_t {
  kOnePerSharedGroup,  // 2.6.22-2.6.31: a group whose CPUs share a core or cache counts as one
  kSumOfCpus,          // 2.6.32: the sum of its CPUs (SMT threads share smt_gain 1178)
};

// domains[cpu] lists that CPU's domains bottom up.
std::vector<std::vector<Domain>> build_domains(const Machine& m,
                                               const std::vector<DomainTemplate>& levels,
                                               GroupPower power);

}  // namespace schedlab::balance
