// Sizes from dbench 4.0 (sahlberg/dbench at 23ba06d, 2007-07-27, VERSION=4.00, the code
// of the 4.0 release): child.c's child_run() parses a line, sockio.c's nb_* functions
// call do_packets(child, send_size, recv_size) and add the data moved to child->bytes.
#include "workload/generators/tbench_sizes.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "util/rng.h"

namespace schedlab {
namespace {

// child_run()'s all_string_sub(): every `from` becomes `to`, scanning left to right.
std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  for (size_t at = 0; at < s.size();) {
    if (s.substr(at, from.size()) == from) {
      out += to;
      at += from.size();
    } else {
      out += s[at++];
    }
  }
  return out;
}

// util.c's next_token() with " " as the separator: a double quote toggles quoting and
// is dropped, so a quoted path keeps its spaces.
std::vector<std::string> tokens(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (out.size() < 19) {  // child_run() reads at most 19 parameters
    while (i < line.size() && line[i] == ' ') ++i;
    if (i == line.size()) break;
    std::string token;
    for (bool quoted = false; i < line.size() && (quoted || line[i] != ' '); ++i) {
      if (line[i] == '"')
        quoted = !quoted;
      else
        token += line[i];
    }
    out.push_back(std::move(token));
  }
  return out;
}

int64_t number(const std::vector<std::string>& p, size_t i) {
  return i < p.size() ? std::strtoll(p[i].c_str(), nullptr, 0) : 0;  // ival(): strtol(s, 0, 0)
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::optional<TbenchExchange> tbench_line_exchange(std::string_view raw,
                                                   std::string_view directory) {
  if (!raw.empty() && raw.back() == '\n') raw.remove_suffix(1);
  const std::string line = replace_all(replace_all(raw, "\\", "/"), " /", " ");
  std::vector<std::string> p = tokens(line);
  if (p.size() < 2 || p[0][0] == '#') return std::nullopt;
  if (p[0][0] >= '0' && p[0][0] <= '9') p.erase(p.begin());  // a timed line: its time first
  if (p.empty() || (!starts_with(p.back(), "NT_STATUS_") && !starts_with(p.back(), "0x")))
    return std::nullopt;  // "Badly formed status": skipped
  // A parameter starting with '/' is a path under the directory; "client1" in it becomes
  // the client's own name, of the same length for clients 0-9.
  auto path = [&](size_t i) -> int64_t {
    if (i >= p.size() || p[i].empty() || p[i][0] != '/') return 0;
    return static_cast<int64_t>(directory.size() + p[i].size());
  };
  const std::string& k = p[0];
  const int64_t f = path(1);
  auto x = [&](int64_t send, int64_t recv, int64_t counted = 0) {
    TbenchExchange e;
    e.request = send;
    e.reply = recv;
    e.counted = counted;
    return e;
  };
  const auto one_path = [&] { return x(39 + 2 + f * 2 + 2, 39); };
  // sockio.c, function by function. Deltree (nb_deltree() sends nothing), Sleep and
  // unknown operations make no exchange.
  const std::pair<std::string_view, std::function<TbenchExchange()>> rules[] = {
      {"Unlink", one_path},
      {"Mkdir", one_path},
      {"Rmdir", one_path},
      {"NTCreateX", [&] { return x(70 + 2 + f * 2 + 2, 39 + 12 * 4); }},
      {"WriteX", [&] { return x(39 + 20 + number(p, 3), 39 + 16, number(p, 3)); }},  // += size
      {"ReadX", [&] { return x(39 + 20, 39 + 20 + number(p, 4), number(p, 4)); }},   // += ret_size
      {"Close", [&] { return x(39 + 8, 39); }},
      {"Rename", [&] { return x(39 + 8 + 2 * f + 2 * path(2), 39); }},
      {"Flush", [&] { return x(39 + 2, 39); }},
      {"QUERY_PATH_INFORMATION", [&] { return x(39 + 16 + 2 * f, 39 + 32); }},
      {"QUERY_FILE_INFORMATION", [&] { return x(39 + 20, 39 + 32); }},
      {"QUERY_FS_INFORMATION", [&] { return x(39 + 20, 39 + 32); }},
      {"FIND_FIRST", [&] { return x(39 + 20 + f * 2, 39 + 90 * number(p, 4)); }},  // entries
      {"SET_FILE_INFORMATION", [&] { return x(39 + 32, 39 + 8); }},
      {"LockX", [&] { return x(39 + 12, 39); }},
      {"UnlockX", [&] { return x(39 + 12, 39); }},
  };
  for (const auto& [kind, sized] : rules) {
    if (kind != k) continue;
    TbenchExchange e = sized();
    e.kind = kind;  // a name that outlives the line
    return e;
  }
  return std::nullopt;
}

// A pair's sample: n exchanges drawn systematically from client.txt's counted exchanges
// (one uniform offset, then every total/n-th occurrence), so its size distribution is the
// file's within 1/n; then shuffled: the sample keeps client.txt's mix, not its order.
std::vector<TbenchExchange> tbench_sample(int64_t n, Rng& rng) {
  const std::span<const TbenchExchange> table = tbench_client_txt();
  int64_t total = 0;
  for (const TbenchExchange& e : table) total += e.occurrences;
  const double offset = rng.unit();
  std::vector<TbenchExchange> out;
  out.reserve(static_cast<size_t>(n));
  size_t row = 0;
  int64_t below = table[0].occurrences;  // occurrences up to and including `row`
  for (int64_t j = 0; j < n; ++j) {
    const auto at = static_cast<int64_t>((static_cast<double>(j) + offset) *
                                         static_cast<double>(total) / static_cast<double>(n));
    while (at >= below && row + 1 < table.size()) below += table[++row].occurrences;
    out.push_back(table[row]);
  }
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng.below(i)]);
  return out;
}

}  // namespace schedlab
