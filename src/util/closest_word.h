// Suggestions for a mistyped name ("rnu": did you mean run?).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace schedlab {

// The candidate closest to `word` by edit distance (insertions, deletions, substitutions
// and swaps of neighbours), if it is within 2 edits or a third of the word's length;
// ties go to the earlier candidate.
std::optional<std::string> closest_word(const std::string& word,
                                        const std::vector<std::string>& candidates);

}  // namespace schedlab
