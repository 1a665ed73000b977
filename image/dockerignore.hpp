// The patterns of a build context's .dockerignore, applied client-side as
// the Docker CLI applies them, so that fiber run --build sends the engine
// what docker build would send: not .env, .git or keys a project lists.
// The rules are Docker's (moby's patternmatcher): a line starting with #
// is a comment; lines are trimmed and blank ones skipped; ! makes an
// exception; a pattern is cleaned like a path (./a/ is a) and a leading /
// is dropped; * and ? match within one path element, [...] is a class,
// a backslash escapes, **/ matches any number of directories (none included) and a
// trailing ** anything; a pattern excludes what it matches and everything
// under it; the last pattern that matches a path decides.
// Used by image/engine_build.cpp. Immutable once parsed: thread-safe.
#pragma once

#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace fiber::image {

/// One step of a compiled pattern.
struct GlobStep {
  enum Kind { kLiteral, kOne, kStar, kClass, kDirectories, kRest } kind = kLiteral;
  char literal = 0;                             // kLiteral
  std::vector<std::pair<char, char>> ranges;    // kClass: its members, lo-hi
  bool negated = false;                         // kClass: [^...]
};

/// One context's ignore patterns.
class Dockerignore {
 public:
  /// Reads context_dir/.dockerignore; no such file means nothing is left
  /// out. False with *err when it cannot be read or a pattern is malformed.
  [[nodiscard]] bool Load(const std::string& context_dir, std::string* err);
  /// Takes the patterns of a .dockerignore's text. False with *err naming
  /// the line of a malformed pattern (a lone "!", an unclosed "[").
  [[nodiscard]] bool Parse(std::string_view text, std::string* err);

  /// Whether path (relative to the context, '/'-separated) stays out.
  bool Excludes(const std::string& path) const;
  /// Whether any pattern is an exception: then an excluded directory may
  /// still hold paths that are sent, and must be walked.
  bool HasExceptions() const;
  bool empty() const { return patterns_.empty(); }

 private:
  struct Pattern {
    std::vector<GlobStep> steps;
    bool exception = false;
  };
  std::vector<Pattern> patterns_;
};

}  // namespace fiber::image
