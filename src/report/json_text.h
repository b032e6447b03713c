// Text from outside made safe for a JSON writer. A task's comm is whatever bytes a process
// renamed itself to (prctl PR_SET_NAME takes any), and the JSON library refuses invalid
// UTF-8 with an exception; here each byte that is not part of a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) becomes
// the four characters "\xNN", as Python's "backslashreplace" does, so distinct names stay
// distinct and readable. Every JSON writer passes its names through here.
#pragma once

#include <string>
#include <string_view>

namespace schedlab {

// `s` when it is valid UTF-8, else a copy with each stray byte written "\xNN".
std::string utf8_or_escaped(std::string_view s);

// The JSON string literal of `s` (quotes included), after utf8_or_escaped.
std::string json_string(std::string_view s);

}  // namespace schedlab
