#include <unistd.h>

#include <iostream>

#include "cli/cli.h"
#include "util/error.h"
#include "util/output_file.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // stdout through a checked buffer: what could not be written (a full disk, /dev/full)
  // is an error, not a success.
  schedlab::OutputFile out(STDOUT_FILENO, "<stdout>");
  if (isatty(STDOUT_FILENO)) out.stream() << std::unitbuf;  // a person reads as it comes
  const int code = schedlab::cli_main(args, out.stream(), std::cerr);
  try {
    out.close();
  } catch (const schedlab::InputError& e) {
    std::cerr << "schedlab: " << e.what() << "\n";
    return code == 0 ? 2 : code;
  }
  return code;
}
