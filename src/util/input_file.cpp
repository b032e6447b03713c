#include "util/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/error.h"
#include "util/limits.h"

namespace schedlab {

namespace {

std::atomic<uint64_t> g_max_input{kDefaultMaxInputBytes};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

[[noreturn]] void too_large(const std::string& path, uint64_t size, uint64_t limit) {
  throw InputError(path, "",
                   fmt::format("{} bytes is more than the input limit of {} bytes "
                               "(--max-input raises it)",
                               size, limit));
}

}  // namespace

uint64_t max_input_bytes() {
  return g_max_input.load();
}

void set_max_input_bytes(uint64_t bytes) {
  g_max_input = bytes;
}

std::string read_input_file(const std::string& path) {
  // Refused by its type before it is opened (opening a device may do something), and
  // checked again on the descriptor in case the path changed in between.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InputError(path, "", fmt::format("not a regular file ({})", kind_of(st.st_mode)));
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, "", fmt::format("cannot open file: {}", strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw InputError(path, "", fmt::format("not a regular file ({})", kind_of(st.st_mode)));
  const uint64_t limit = max_input_bytes();
  if (static_cast<uint64_t>(st.st_size) > limit)
    too_large(path, static_cast<uint64_t>(st.st_size), limit);
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t used = 0;
  for (;;) {  // the file may grow or shrink while it is read
    if (used == text.size()) {
      if (used >= limit + 1) too_large(path, used, limit);
      text.resize(std::min<uint64_t>(limit + 1, std::max<uint64_t>(4096, used * 2)));
    }
    const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path, "", fmt::format("cannot read: {}", strerror(errno)));
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  if (used > limit) too_large(path, used, limit);
  text.resize(used);
  return text;
}

bool parse_byte_count(const std::string& text, uint64_t& bytes) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p == text.data()) return false;
  int shift = 0;
  if (p != end) {
    if (p + 1 != end) return false;
    switch (*p) {
      case 'K':
      case 'k':
        shift = 10;
        break;
      case 'M':
      case 'm':
        shift = 20;
        break;
      case 'G':
      case 'g':
        shift = 30;
        break;
      default:
        return false;
    }
  }
  if (shift && v > (UINT64_MAX >> shift)) return false;
  bytes = v << shift;
  return true;
}

bool path_exists(const std::string& path) {
  std::error_code unknown;
  return std::filesystem::exists(path, unknown);
}

}  // namespace schedlab
