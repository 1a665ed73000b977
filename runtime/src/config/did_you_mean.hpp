// A suggestion for a misspelt name, for errors such as "unknown key
// 'heartbeat_timout' (did you mean 'heartbeat_timeout'?)".
#pragma once

#include <string>
#include <vector>

namespace fiber::config {

/// The known name closest to word, when it is close enough to be a likely
/// typo (a third of its letters or fewer differ); "" otherwise.
std::string Closest(const std::string& word, const std::vector<std::string>& known);
/// " (did you mean 'NAME'?)" for Closest, or "".
std::string DidYouMean(const std::string& word, const std::vector<std::string>& known);

}  // namespace fiber::config
