// Errors that reach the user: bad input and workloads that cannot proceed.
// Each names the file, the key and the reason; the CLI prints one line and exits 2.
#pragma once

#include <stdexcept>
#include <string>

namespace schedlab {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string key, std::string reason)
      : std::runtime_error(format(file, key, reason)),
        file_(std::move(file)),
        key_(std::move(key)),
        reason_(std::move(reason)) {}

  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  const std::string& reason() const { return reason_; }

 private:
  static std::string format(const std::string& file, const std::string& key,
                            const std::string& reason) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (!key.empty()) s += ": " + key;
    return s + ": " + reason;
  }
  std::string file_, key_, reason_;
};

// A run that cannot go on: a deadlocked workload, a stuck spinlock, an unlock of a
// mutex the task does not hold. The message names the tasks and objects involved; the
// file is the scenario's, set by whoever knows it (see in_scenario below).
class WorkloadError : public std::runtime_error {
 public:
  explicit WorkloadError(const std::string& message, std::string file = "")
      : std::runtime_error(message), file_(std::move(file)) {}

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Calls `run`; a WorkloadError from it that names no file is thrown again naming `file`.
template <class F>
decltype(auto) in_scenario(const std::string& file, F&& run) {
  try {
    return run();
  } catch (const WorkloadError& e) {
    if (!e.file().empty()) throw;
    throw WorkloadError(e.what(), file);
  }
}

// A broken promise of the engine or a policy (the invariant checker found it).
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace schedlab
