// `schedlab calibrate`: measure this machine (host/calibration.h), print each figure with
// its spread, and write the machine file that compare and validate use: the cached one,
// and --out FILE too. A busy machine is measured all the same, with a warning.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "host/calibration.h"
#include "host/host_machine.h"
#include "host/user_dirs.h"
#include "json/jtree.h"
#include "util/error.h"
#include "util/output_file.h"

namespace schedlab {

namespace {

struct CalibrateArgs {
  std::string out;
  bool quick = false;
};

void write_machine_file(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  write_output(path, text);
  // What was written must read back: a machine file that check accepts.
  read_machine(parse_json_file(path), JsonReader(path), p.parent_path().string(), 1);
}

int calibrate(const CalibrateArgs& a, std::ostream& out, std::ostream& err) {
  const Calibration c = calibrate_machine({a.quick}, [&err](const std::string& what) {
    err << "schedlab: measuring " << what << "\n";
  });
  out << calibration_table(c) << "\n"
      << c.load << "; " << fmt::format("{:.1f} s", c.seconds) << "\n";
  if (c.busy)
    err << "schedlab: warning: the machine was busy while measuring (" << c.load
        << "): the figures are unreliable; calibrate again on a quiet machine\n";
  const std::string comment = fmt::format(
      "Measured by `schedlab calibrate{}` on this host (Linux {}) in {:.1f} s, {}. Topology "
      "and HZ from /sys and the kernel; each cost is the median of its samples (the table "
      "calibrate prints gives their spread); background: one source per CPU, the gaps where "
      "another task preempted a pinned hog.",
      a.quick ? " --quick" : "", host_kernel_release(), c.seconds, c.load);
  const std::string text = machine_file_text(c.machine, comment);
  // What is written must read back: a machine file that check accepts.
  read_machine(parse_json(text, "the calibrated machine"), JsonReader("the calibrated machine"), "",
               1);
  std::string why;
  const std::string cached = cached_machine_path(&why);
  if (cached.empty())
    err << "schedlab: note: the machine file is not cached: " << why << "\n";
  else if (!write_cache_file(cached, [&text](std::ostream& os) { os << text; }))
    err << "schedlab: warning: could not write the cached machine file " << cached << "\n";
  else
    out << "machine file: " << cached << "\n";
  if (!a.out.empty()) {
    write_machine_file(a.out, text);
    out << "machine file: " << a.out << "\n";
  }
  return 0;
}

}  // namespace

Command add_calibrate(CLI::App& parent) {
  auto a = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "calibrate", "measure this machine's costs into a machine file (for compare, validate)");
  cmd->add_option("--out", a->out, "also write the machine file here (e.g. machines/host.json)");
  cmd->add_flag("--quick", a->quick, "fewer samples (about a third of the time)");
  return {cmd, [a](std::ostream& out, std::ostream& err) { return calibrate(*a, out, err); }};
}

}  // namespace schedlab
