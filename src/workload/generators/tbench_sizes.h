// tbench's exchanges as dbench 4.0 sizes them (docs/workloads/tbench.md): each line of
// client.txt becomes one request/reply over the client's socket, of the sizes sockio.c's
// nb_* function for that operation gives, and tbench counts only the data of ReadX
// replies and WriteX requests.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace schedlab {

class Rng;

struct TbenchExchange {
  std::string_view kind;  // client.txt's operation name
  int64_t request = 0;    // bytes the client writes (its 4-byte header included)
  int64_t reply = 0;      // bytes the server writes back
  int64_t counted = 0;    // bytes added to child->bytes, what "MB/sec" counts
  int64_t occurrences = 1;
};

// The exchange of one client.txt line as dbench 4.0's child_run() parses it, or nullopt
// when the line sends nothing (Deltree, Sleep, comments, malformed status).
// `directory` is dbench's -D (options.directory, "." by default).
std::optional<TbenchExchange> tbench_line_exchange(std::string_view line,
                                                   std::string_view directory = ".");

// Every distinct exchange of dbench 4.0's client.txt (458,344 lines) with its
// occurrences, as scripts/tbench_sizes.py counts them from the installed file.
std::span<const TbenchExchange> tbench_client_txt();

// A pair's sample of n exchanges: systematic over tbench_client_txt()'s occurrences from
// one uniform offset (the file's size distribution within 1/n), then shuffled.
std::vector<TbenchExchange> tbench_sample(int64_t n, Rng& rng);

}  // namespace schedlab
