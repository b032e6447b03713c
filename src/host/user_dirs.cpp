#include "host/user_dirs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "util/error.h"
#include "util/output_file.h"

namespace schedlab {

namespace {

// A directory of this user that no one else may write (or, with `private_too`, read).
bool ours(const std::string& dir, bool private_too, std::string* why) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (why) *why = fmt::format("{}: {}", dir, strerror(errno));
    return false;
  }
  const mode_t others = private_too ? 077 : 022;
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & others) != 0) {
    if (why)
      *why = !S_ISDIR(st.st_mode) ? fmt::format("{} is not a directory", dir)
             : st.st_uid != geteuid()
                 ? fmt::format("{} belongs to uid {}, not to this user ({})", dir, st.st_uid,
                               geteuid())
                 : fmt::format("{} may be written by others (mode {:o})", dir, st.st_mode & 0777);
    return false;
  }
  return true;
}

std::string home_dir() {
  if (const char* home = getenv("HOME"); home && home[0] == '/') return home;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(geteuid(), &pw, buf.data(), buf.size(), &found) == 0 && found && pw.pw_dir &&
      pw.pw_dir[0] == '/')
    return pw.pw_dir;
  return {};
}

}  // namespace

PrivateDir::PrivateDir() {
  std::string base;
  if (const char* run = getenv("XDG_RUNTIME_DIR"); run && run[0] == '/' && ours(run, true, nullptr))
    base = run;
  else
    base = std::filesystem::temp_directory_path().string();
  std::string pattern = base + "/schedlab-XXXXXX";
  if (!mkdtemp(pattern.data()))  // a new 0700 directory, or nothing
    throw InputError(base, "", fmt::format("cannot make a private directory: {}", strerror(errno)));
  path_ = pattern;
}

PrivateDir::~PrivateDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string PrivateDir::new_file(const std::string& name) const {
  const std::string path = path_ + "/" + name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw InputError(path, "", fmt::format("cannot create: {}", strerror(errno)));
  ::close(fd);
  return path;
}

std::string cache_dir(const std::string& dir, std::string* why) {
  std::string path = dir;
  if (path.empty()) {
    if (const char* xdg = getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') {
      path = std::string(xdg) + "/schedlab";
    } else {
      const std::string home = home_dir();
      if (home.empty()) {
        if (why) *why = "no home folder (HOME unset and none in the password database)";
        return {};
      }
      ::mkdir((home + "/.cache").c_str(), 0700);
      path = home + "/.cache/schedlab";
    }
  }
  ::mkdir(path.c_str(), 0700);
  return ours(path, false, why) ? path : std::string();
}

std::optional<std::string> read_cache_file(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<size_t>(st.st_size) <= max_bytes) {
    std::string s(static_cast<size_t>(st.st_size), '\0');
    const ssize_t n = ::read(fd, s.data(), s.size());
    if (n == st.st_size) text = std::move(s);
  }
  ::close(fd);
  return text;
}

bool write_cache_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::string temp = path + ".XXXXXX";
  const int fd = mkstemp(temp.data());  // O_EXCL, 0600
  if (fd < 0) return false;
  bool ok = true;
  try {
    OutputFile out(fd, temp);
    write(out.stream());
    out.close();
  } catch (const std::exception&) {
    ok = false;
  }
  ok = ::close(fd) == 0 && ok;
  ok = ok && ::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(temp.c_str());
  return ok;
}

}  // namespace schedlab
