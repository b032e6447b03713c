// The process-global mutexes a MySQL 5.1 InnoDB connection thread takes serving sysbench
// 0.4's OLTP statements (docs/workloads/oltp.md, "InnoDB 5.1's global mutexes"). Used by
// the oltp generator's mysql variant unless `innodb_latches` is false.
#pragma once

#include <string>
#include <vector>

#include "workload/generators/oltp_pgsql.h"
#include "workload/program.h"

namespace schedlab::oltp {

struct InnodbSettings {
  std::string name;     // prefix of the mutex names
  Time hold_ns;         // under each mutex, per acquisition
  Time log_write_ns;    // COMMIT: the log write (pwrite) under log_sys->mutex
  Time log_flush_ns;    // COMMIT: the fsync, outside every InnoDB mutex
  int64_t spin_config;  // how the mutexes are waited for (w.spin_configs)
  // btr_search_latch, the adaptive hash index's rw-lock (sim/innodb_rw_lock.h), if set:
  // S over a point select's hash lookup for search_s_ns, X for hold_ns on every change of
  // a leaf record; mutex_ns under the rw-lock's own mutex per lock and unlock.
  bool search_latch = false;
  Time search_s_ns = 0;
  Time mutex_ns = 0;
};

class InnodbLatches {
 public:
  InnodbLatches(Workload& w, InnodbSettings settings);
  // The server's global mutexes for `query`. first_read: the transaction's first data
  // statement (it starts the InnoDB transaction and opens its read view); first_write:
  // the transaction's first change (it assigns the update undo log); writes: whether the
  // transaction changes rows (its COMMIT then has undo to finish and log to flush).
  void serve(Query query, bool first_read, bool first_write, bool writes,
             std::vector<Step>& s) const;

 private:
  void section(int32_t mutex, Time hold, std::vector<Step>& s) const;
  // A modifying mini-transaction's commit: log_sys->mutex, held while its X-latched
  // page is released and noted on the flush list under buf_pool->mutex.
  void mtr_commit(std::vector<Step>& s) const;
  // A row change: its undo record (the undo page fetched, its own mini-transaction),
  // then the change's mini-transaction.
  void undo_then_change(std::vector<Step>& s) const;
  // The change of an index leaf's record, then its mini-transaction's commit: X on
  // btr_search_latch around the change, the leaf being hashed.
  void leaf_change(std::vector<Step>& s) const;

  const Workload* w_;  // the one being generated (the rw-lock's mutex and settings)
  InnodbSettings p_;
  int32_t kernel_, buf_pool_, log_sys_, rseg_, autoinc_;
  int32_t search_latch_ = -1;
};

}  // namespace schedlab::oltp
