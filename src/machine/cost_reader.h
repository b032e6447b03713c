// The keys of a machine file that set the costs of costs.h (read by read_machine).
#pragma once

#include <string>

#include "json/jread.h"
#include "machine/machine.h"

namespace schedlab {

// Reads `key` of a machine object into m if it is one of the costs; false otherwise.
// "idle_exit_ns" is a number (one state) or a list of {"name", "idle_ns", "exit_ns"};
// "background" is one source's object or a list of them, whose CPUs m.cpus must have.
bool read_cost_key(Machine& m, const std::string& key, const JValue& v, const JsonReader& r);

}  // namespace schedlab
