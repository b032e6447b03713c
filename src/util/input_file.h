// Reading an input file whole, within limits: regular files only (a FIFO would block
// forever, /dev/zero never ends) and at most the input limit of bytes (README "Limits";
// `--max-input` sets it for one command).
#pragma once

#include <cstdint>
#include <string>

namespace schedlab {

// The limit every read_input_file applies (process-wide; the CLI sets it per command).
uint64_t max_input_bytes();
void set_max_input_bytes(uint64_t bytes);

// The file's bytes. Throws InputError naming the path when it cannot be opened, is not a
// regular file, or is larger than max_input_bytes().
std::string read_input_file(const std::string& path);

// Whether `path` names something, without throwing: false also when the system cannot say
// (a name too long, say), and reading it then reports why. std::filesystem::exists throws
// there, which a user's path must never make an internal error.
bool path_exists(const std::string& path);

// "64M", "1G", "500000": bytes with an optional K, M or G (binary) suffix; false if it is
// not one (or overflows).
bool parse_byte_count(const std::string& text, uint64_t& bytes);

}  // namespace schedlab
