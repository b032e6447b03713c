// `schedlab host bench`: the real programs of the seed benchmarks, from Debian's packages,
// run over thread/client/group counts with repeats, each run's own figure parsed:
//   x264       fps of an encode of a synthetic 704x576 clip (made once, cached)
//   tbench     MB/s of tbench against a local tbench_srv (dbench's client.txt)
//   hackbench  seconds (rt-tests' hackbench, threads or processes)
//   rtapp      seconds of wall time of rt-app on a JSON file
// under a policy (chrt), a nice value and an affinity (taskset).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace schedlab {

struct HostBenchOptions {
  std::string program;      // x264 | tbench | hackbench | rtapp
  std::vector<int> counts;  // threads (x264), clients (tbench), groups (hackbench)
  int repeat = 3;
  std::string policy = "SCHED_OTHER";  // SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR
  int rt_priority = 10;
  int nice = 0;
  std::string cpus;  // taskset list; empty: all
  // x264
  std::string preset = "ultrafast";
  int frames = 100, width = 704, height = 576;
  // tbench
  double seconds = 10;
  // hackbench
  int loops = 100;
  bool processes = false;
  // rtapp
  std::string file;
  std::string cache_dir;  // empty: host/user_dirs.h's cache folder
  double timeout_s = 600;
};

struct BenchRun {
  int count = 0, repeat = 0;
  double value = 0;
};

// The figure one run printed: fps for x264, MB/s for tbench, seconds for hackbench.
// Throws InputError naming the program when the output has no figure.
double parse_bench_output(const std::string& program, const std::string& output);
// The unit of each program's figure.
std::string bench_unit(const std::string& program);

// The command line of one run (the wrappers for policy, nice and affinity included).
std::vector<std::string> bench_command(const HostBenchOptions& o, int count,
                                       const std::string& clip);

// Runs every count `repeat` times; `done` is told of each run as it ends.
std::vector<BenchRun> host_bench(const HostBenchOptions& o,
                                 const std::function<void(const BenchRun&)>& done = {});

}  // namespace schedlab
