#include "host/host_bench.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "host/tracefs.h"
#include "host/user_dirs.h"
#include "util/error.h"

namespace schedlab {

namespace {

bool on_path(const std::string& program) {
  const char* path = getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= p.size();) {
    const size_t end = p.find(':', start);
    const std::string dir =
        p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

void require(const std::string& program, const std::string& package) {
  if (!on_path(program))
    throw InputError(
        "", "host bench",
        fmt::format("{} is not installed (apt-get install {}; `make deps` does it as root)",
                    program, package));
}

// A synthetic YUV 4:2:0 clip with texture and motion, so that motion search and entropy
// coding have work to do (in place of ffmpeg's test source): made once in the cache folder
// (host/user_dirs.h), or for this run only in `scratch` when there is no cache to trust.
std::string make_clip(const HostBenchOptions& o, std::unique_ptr<PrivateDir>& scratch) {
  const uint64_t bytes = static_cast<uint64_t>(o.width) * static_cast<uint64_t>(o.height) * 3 / 2 *
                         static_cast<uint64_t>(o.frames);
  constexpr uint64_t kMaxClipBytes = uint64_t{4} << 30;
  if (bytes > kMaxClipBytes)
    throw InputError("", "--frames",
                     fmt::format("the clip would take {} bytes, more than 4 GiB: fewer frames or "
                                 "a smaller picture",
                                 bytes));
  std::string why;
  std::string dir = cache_dir(o.cache_dir, &why);
  if (dir.empty()) {
    scratch = std::make_unique<PrivateDir>();
    dir = scratch->path();
  }
  const std::string file = fmt::format("{}/clip-{}x{}-{}.yuv", dir, o.width, o.height, o.frames);
  struct stat st {};
  if (::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
      static_cast<uint64_t>(st.st_size) == bytes)
    return file;
  const bool written = write_cache_file(file, [&](std::ostream& out) {
    std::vector<unsigned char> y(static_cast<size_t>(o.width) * o.height);
    std::vector<unsigned char> uv(y.size() / 4);
    uint32_t noise = 12345;
    for (int f = 0; f < o.frames; ++f) {
      for (int r = 0; r < o.height; ++r)
        for (int c = 0; c < o.width; ++c) {
          noise = noise * 1664525u + 1013904223u;
          const int moving =
              ((c + 3 * f) / 16 + (r + f) / 16) % 2 ? 180 : 60;  // a drifting checkerboard
          y[static_cast<size_t>(r) * o.width + c] = static_cast<unsigned char>(
              std::clamp(moving + static_cast<int>(noise >> 28) - 8, 0, 255));
        }
      out.write(reinterpret_cast<const char*>(y.data()), static_cast<std::streamsize>(y.size()));
      for (size_t i = 0; i < uv.size(); ++i)
        uv[i] = static_cast<unsigned char>(128 + ((i + f) % 16));
      out.write(reinterpret_cast<const char*>(uv.data()), static_cast<std::streamsize>(uv.size()));
      out.write(reinterpret_cast<const char*>(uv.data()), static_cast<std::streamsize>(uv.size()));
    }
  });
  if (!written) throw InputError(file, "", "cannot write the clip");
  return file;
}

// Runs argv, returning its stdout and stderr together; stops it at the timeout.
std::string run_capture(const std::vector<std::string>& argv, double timeout_s, int* status) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw InputError("", "host bench", strerror(errno));
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // it dies with schedlab
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  std::string output;
  const auto start = std::chrono::steady_clock::now();
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<size_t>(n));
      continue;
    }
    const pid_t r = waitpid(child, status, WNOHANG);
    if (r == child && n <= 0) break;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > timeout_s || StopSignals::caught()) {
      kill(-child, SIGKILL);
      waitpid(child, status, 0);
      close(fds[0]);
      throw InputError(
          "", "host bench",
          fmt::format("{} {} after {:.0f} s", argv[0],
                      StopSignals::caught() ? "was interrupted" : "timed out", elapsed));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  close(fds[0]);
  kill(-child, SIGKILL);  // nothing of it stays behind
  return output;
}

}  // namespace

std::string bench_unit(const std::string& program) {
  if (program == "x264") return "fps";
  if (program == "tbench") return "MB/s";
  return "seconds";
}

// The number right after the last occurrence of `before` (and before `after`, if given).
bool number_after(const std::string& text, const std::string& before, const std::string& after,
                  double* value) {
  const size_t at = text.rfind(before);
  if (at == std::string::npos) return false;
  const size_t from = at + before.size();
  const size_t to =
      after.empty() ? text.find_first_not_of("0123456789.", from) : text.find(after, from);
  try {
    size_t used = 0;
    *value = std::stod(text.substr(from, to == std::string::npos ? std::string::npos : to - from),
                       &used);
    return used > 0;
  } catch (const std::exception&) {
    return false;
  }
}

double parse_bench_output(const std::string& program, const std::string& output) {
  double v = 0;
  if (program == "x264") {
    // "encoded 100 frames, 123.45 fps, 456.78 kb/s"
    const size_t enc = output.rfind("encoded ");
    if (enc != std::string::npos && number_after(output.substr(enc), " frames, ", " fps", &v))
      return v;
  } else if (program == "tbench") {
    if (number_after(output, "Throughput ", " MB/sec", &v)) return v;
  } else if (program == "hackbench") {
    if (number_after(output, "Time: ", "", &v)) return v;
  }
  throw InputError("", "host bench",
                   fmt::format("{} printed no figure; its output ends: {}", program,
                               output.substr(output.size() > 300 ? output.size() - 300 : 0)));
}

std::vector<std::string> bench_command(const HostBenchOptions& o, int count,
                                       const std::string& clip) {
  std::vector<std::string> argv;
  if (!o.cpus.empty()) argv.insert(argv.end(), {"taskset", "-c", o.cpus});
  if (o.policy == "SCHED_BATCH")
    argv.insert(argv.end(), {"chrt", "--batch", "0"});
  else if (o.policy == "SCHED_IDLE")
    argv.insert(argv.end(), {"chrt", "--idle", "0"});
  else if (o.policy == "SCHED_FIFO")
    argv.insert(argv.end(), {"chrt", "--fifo", std::to_string(o.rt_priority)});
  else if (o.policy == "SCHED_RR")
    argv.insert(argv.end(), {"chrt", "--rr", std::to_string(o.rt_priority)});
  else if (o.policy != "SCHED_OTHER")
    throw InputError("", "--policy " + o.policy,
                     "expected SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO or SCHED_RR");
  if (o.nice != 0) argv.insert(argv.end(), {"nice", "-n", std::to_string(o.nice)});
  if (o.program == "x264") {
    argv.insert(argv.end(), {"x264", "--preset", o.preset, "--threads", std::to_string(count)});
    // E1's command lines (docs/experiments/E1.md): A ultrafast without lookahead at qp 20, B the
    // default preset at 2000 kbit/s, C veryslow at crf 20.
    if (o.preset == "ultrafast")
      argv.insert(argv.end(), {"--no-scenecut", "--sync-lookahead", "0", "--qp", "20"});
    else if (o.preset == "medium")
      argv.insert(argv.end(), {"-B", "2000"});
    else if (o.preset == "veryslow")
      argv.insert(argv.end(), {"--crf", "20"});
    argv.insert(argv.end(), {"--input-res", fmt::format("{}x{}", o.width, o.height), "--fps", "25",
                             "--frames", std::to_string(o.frames), "-o", "/dev/null", clip});
  } else if (o.program == "tbench") {
    argv.insert(argv.end(), {"tbench", "-t", fmt::format("{:g}", o.seconds), "-c",
                             "/usr/share/dbench/client.txt", std::to_string(count), "127.0.0.1"});
  } else if (o.program == "hackbench") {
    argv.insert(argv.end(), {"hackbench", "-g", std::to_string(count), o.processes ? "-P" : "-T",
                             "-l", std::to_string(o.loops)});
  } else if (o.program == "rtapp") {
    argv.insert(argv.end(), {"rt-app", o.file});
  } else {
    throw InputError("", "host bench " + o.program,
                     "unknown program (x264, tbench, hackbench or rtapp)");
  }
  return argv;
}

std::vector<BenchRun> host_bench(const HostBenchOptions& o,
                                 const std::function<void(const BenchRun&)>& done) {
  if (o.program == "x264") require("x264", "x264");
  if (o.program == "tbench") require("tbench_srv", "dbench");
  if (o.program == "hackbench") require("hackbench", "rt-tests");
  if (o.program == "rtapp") require("rt-app", "rt-app");
  if (o.program == "rtapp" && o.file.empty())
    throw InputError("", "host bench rtapp", "give the rt-app JSON file with --file");
  if ((o.policy == "SCHED_FIFO" || o.policy == "SCHED_RR") && geteuid() != 0)
    throw InputError("", "--policy " + o.policy, "real-time policies need root (CAP_SYS_NICE)");
  std::unique_ptr<PrivateDir> scratch;
  const std::string clip = o.program == "x264" ? make_clip(o, scratch) : "";
  StopSignals signals;
  pid_t server = -1;
  if (o.program == "tbench") {
    server = fork();
    if (server == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      dup2(null, 2);
      execlp("tbench_srv", "tbench_srv", nullptr);
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  std::vector<BenchRun> runs;
  try {
    for (int count : o.counts)
      for (int r = 0; r < o.repeat; ++r) {
        int status = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const std::string output = run_capture(bench_command(o, count, clip), o.timeout_s, &status);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
          throw InputError(
              "", "host bench",
              fmt::format("{} failed (status {}); its output ends: {}", o.program, status,
                          output.substr(output.size() > 300 ? output.size() - 300 : 0)));
        BenchRun run{count, r, o.program == "rtapp" ? wall : parse_bench_output(o.program, output)};
        runs.push_back(run);
        if (done) done(run);
      }
  } catch (...) {
    if (server > 0) kill(-server, SIGKILL), waitpid(server, nullptr, 0);
    throw;
  }
  if (server > 0) {
    kill(-server, SIGKILL);
    waitpid(server, nullptr, 0);
  }
  return runs;
}

}  // namespace schedlab
