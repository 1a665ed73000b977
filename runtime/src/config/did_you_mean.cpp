#include "config/did_you_mean.hpp"

#include <algorithm>
#include <numeric>

namespace fiber::config {

namespace {

// Levenshtein distance: the fewest insertions, deletions and substitutions
// that turn a into b.
std::size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string Closest(const std::string& word, const std::vector<std::string>& known) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& name : known) {
    const std::size_t d = EditDistance(word, name);
    if (!best || d < best_distance) {
      best = &name;
      best_distance = d;
    }
  }
  if (!best || best_distance > std::max<std::size_t>(1, best->size() / 3)) return "";
  return *best;
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& known) {
  const std::string best = Closest(word, known);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

}  // namespace fiber::config
