// The simulated machine: CPUs with a topology (SMT siblings, shared last-level cache,
// packages), capacity, the tick rate, and the costs a scheduler's choices incur.
#pragma once

#include <string>
#include <vector>

#include "json/jread.h"
#include "machine/costs.h"
#include "util/types.h"

namespace schedlab {

struct Machine {
  std::string name = "default";
  int cpus = 1;
  int hz = 1000;
  // Time a CPU spends switching to another task, charged to no task.
  Time context_switch_ns = 0;
  // Cache refill after a task moves to a CPU that shares no cache with where it last
  // ran, and after a move within a shared cache. Both decay with time away:
  // cost * cache_decay_ns / (cache_decay_ns + time_away). Charged to the moved task.
  Time migration_cost_ns = 0;
  Time shared_cache_migration_cost_ns = 0;
  // Judgement, not measured: a few ms of other work evict a 2009-era L2.
  Time cache_decay_ns = 10 * kNsPerMs;
  // rt-app's mem and iorun events write this many bytes per µs of work (4 GB/s, an
  // assumed memset bandwidth; machine files should set their own).
  int64_t memory_bytes_per_us = 4000;
  std::vector<int> capacity;                     // per CPU; 1024 = the reference CPU
  std::vector<int> core_of, llc_of, package_of;  // topology ids per CPU
  // The costs of costs.h, all off unless the machine file sets them.
  MachineCosts costs;
  std::vector<IdleState> idle_states;        // by idle_ns, increasing; empty: no exit cost
  std::vector<BackgroundSource> background;  // noise tasks; empty: none

  Time tick_ns() const { return kNsPerSec / hz; }
  bool same_core(CpuId a, CpuId b) const { return core_of[a] == core_of[b]; }
  bool same_llc(CpuId a, CpuId b) const { return llc_of[a] == llc_of[b]; }
  bool same_package(CpuId a, CpuId b) const { return package_of[a] == package_of[b]; }
  // Cache refill a task pays for running on `to` after running on `from`.
  Time migration_penalty(CpuId from, CpuId to, Time time_away) const;
  // Time to leave the idle state a CPU is in once it has idled `idle_for`.
  Time idle_exit_ns(Time idle_for) const;
};

// A flat machine: n CPUs, one shared cache, one package, no costs.
Machine make_machine(int cpus);

// Reads a "machine" object; `base_dir` resolves a machine given as a file name.
Machine read_machine(const JValue& v, const JsonReader& reader, const std::string& base_dir,
                     int default_cpus);

// Rebuilds the topology for a new CPU count (the --cpus option): flat, costs kept.
void resize_machine(Machine& m, int cpus);

// The machine as a machine file (JSON with a leading comment) that read_machine reads back
// to the same values; `comment` is the file's first lines.
std::string machine_file_text(const Machine& m, const std::string& comment);

}  // namespace schedlab
