#include "config/misspelt_variables.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

#include "config/did_you_mean.hpp"
#include "config/resolve.hpp"
#include "config/variables.hpp"

namespace fiber::config {

namespace {

constexpr std::string_view kPrefix = "FIBER_";

// "FIBER_BAKCEND" as "bakcend": suggestions are weighed on the part after
// the prefix, which every name shares.
std::string Stem(std::string_view name) {
  std::string stem(name.substr(kPrefix.size()));
  for (char& c : stem) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return stem;
}

}  // namespace

std::vector<std::string> KnownVariables() {
  std::vector<std::string> known;
  for (const Setting& s : Table()) known.push_back(s.variable);
  known.push_back(kConfigVariable);
  known.insert(known.end(), std::begin(kNonSettingVariables), std::end(kNonSettingVariables));
  return known;
}

std::vector<std::string> MisspeltVariables(char** env) {
  static const std::vector<std::string> known = KnownVariables();
  static const std::vector<std::string> settings = [] {
    std::vector<std::string> stems;
    for (const Setting& s : Table()) stems.push_back(Stem(s.variable));
    stems.push_back(Stem(kConfigVariable));
    return stems;
  }();
  std::vector<std::string> warnings;
  for (char** e = env; e && *e; ++e) {
    const std::string_view entry = *e;
    const std::string_view name = entry.substr(0, entry.find('='));
    if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) continue;
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string stem = Closest(Stem(name), settings);
    if (stem.empty()) continue;
    std::string variable(kPrefix);
    for (char c : stem) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    warnings.push_back(std::string(name) + " is not a fiber setting; did you mean " + variable + "?");
  }
  return warnings;
}

}  // namespace fiber::config
