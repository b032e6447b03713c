#include "host/trace_dat.h"

#include <cstring>
#include <fstream>

#include "host/trace_dat_read.h"
#include "util/error.h"

namespace schedlab {

bool is_trace_dat(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[10] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::memcmp(magic, "\x17\x08\x44tracing", 10) == 0;
}

std::string trace_dat_text(const std::string& path) {
  std::string text = "# tracer: nop\n# read from trace.dat by libtracecmd\n";
  const auto append = [](void* ctx, const char* s, size_t n) {
    static_cast<std::string*>(ctx)->append(s, n);
  };
  if (schedlab_trace_dat_print(path.c_str(), append, &text) != 0)
    throw InputError(path, "", "libtracecmd cannot read this trace.dat");
  return text;
}

}  // namespace schedlab
