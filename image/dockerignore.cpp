#include "image/dockerignore.hpp"

#include <sys/stat.h>

#include <cerrno>

#include "os/whole_file.hpp"

namespace fiber::image {

namespace {

std::string_view Trim(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// Go's filepath.Clean, which Docker applies to every pattern: "./a//b/"
// is "a/b", "a/../b" is "b", "/../a" is "/a".
std::string CleanPath(std::string_view path) {
  const bool rooted = !path.empty() && path.front() == '/';
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!rooted)
        parts.push_back(part);
      continue;
    }
    parts.push_back(part);
  }
  std::string out = rooted ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out.empty() ? "." : out;
}

// The pattern as the steps its matcher takes. False with *err for a
// pattern Docker refuses.
bool Compile(const std::string& glob, std::vector<GlobStep>* steps, std::string* err) {
  for (std::size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    GlobStep step;
    if (c == '*') {
      step.kind = GlobStep::kStar;
      if (i + 1 < glob.size() && glob[i + 1] == '*') {
        ++i;
        if (i + 1 < glob.size() && glob[i + 1] == '/') ++i;  // "**/" is "**"
        step.kind = i + 1 == glob.size() ? GlobStep::kRest : GlobStep::kDirectories;
      }
    } else if (c == '?') {
      step.kind = GlobStep::kOne;
    } else if (c == '\\') {
      if (i + 1 == glob.size()) {
        *err = "it ends in a lone \\";
        return false;
      }
      step.literal = glob[++i];
    } else if (c == '[') {
      step.kind = GlobStep::kClass;
      std::size_t j = i + 1;
      if (j < glob.size() && glob[j] == '^') {
        step.negated = true;
        ++j;
      }
      const auto member = [&](char* out) {
        if (glob[j] == '\\' && j + 1 < glob.size()) ++j;
        *out = glob[j++];
      };
      while (j < glob.size() && glob[j] != ']') {
        char lo = 0, hi = 0;
        member(&lo);
        hi = lo;
        if (j + 1 < glob.size() && glob[j] == '-' && glob[j + 1] != ']') {
          ++j;
          member(&hi);
        }
        if (hi < lo) {
          *err = std::string("its range ") + lo + "-" + hi + " runs backwards";
          return false;
        }
        step.ranges.emplace_back(lo, hi);
      }
      if (j == glob.size()) {
        *err = "its [ has no closing ]";
        return false;
      }
      if (step.ranges.empty()) {
        *err = "it has an empty character class []";
        return false;
      }
      i = j;
    } else {
      step.literal = c;
    }
    steps->push_back(std::move(step));
  }
  return true;
}

// Whether steps[k...] match all of text[at...]; backtracking, as patterns
// are a line long.
bool Match(const std::vector<GlobStep>& steps, std::size_t k, std::string_view text, std::size_t at) {
  for (; k < steps.size(); ++k) {
    const GlobStep& step = steps[k];
    switch (step.kind) {
      case GlobStep::kRest:
        return true;
      case GlobStep::kStar:
        for (std::size_t end = at;; ++end) {
          if (Match(steps, k + 1, text, end)) return true;
          if (end == text.size() || text[end] == '/') return false;
        }
      case GlobStep::kDirectories:
        // None, or any run of text ending in '/'.
        if (Match(steps, k + 1, text, at)) return true;
        for (std::size_t end = at; end < text.size(); ++end)
          if (text[end] == '/' && Match(steps, k + 1, text, end + 1)) return true;
        return false;
      case GlobStep::kOne:
        if (at == text.size() || text[at] == '/') return false;
        ++at;
        break;
      case GlobStep::kClass: {
        if (at == text.size() || text[at] == '/') return false;
        bool in = false;
        for (const auto& [lo, hi] : step.ranges) in = in || (text[at] >= lo && text[at] <= hi);
        if (in == step.negated) return false;
        ++at;
        break;
      }
      case GlobStep::kLiteral:
        if (at == text.size() || text[at] != step.literal) return false;
        ++at;
        break;
    }
  }
  return at == text.size();
}

}  // namespace

bool Dockerignore::Load(const std::string& context_dir, std::string* err) {
  const std::string path = context_dir + "/.dockerignore";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return true;  // none: nothing ignored
  std::string text, reason;
  if (!os::ReadWholeFile(path, &text, &reason)) {
    *err = "cannot read " + path + ": " + reason;
    return false;
  }
  if (!Parse(text, err)) {
    *err = path + " " + *err;
    return false;
  }
  return true;
}

bool Dockerignore::Parse(std::string_view text, std::string* err) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  int number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (!line.empty() && line.front() == '#') continue;  // a comment only in column 1
    line = Trim(line);
    if (line.empty()) continue;
    Pattern pattern;
    pattern.exception = line.front() == '!';
    if (pattern.exception) {
      line = Trim(line.substr(1));
      if (line.empty()) {
        *err = "line " + std::to_string(number) + ": \"!\" alone names nothing to keep";
        return false;
      }
    }
    std::string glob = CleanPath(line);
    if (glob.size() > 1 && glob.front() == '/') glob.erase(0, 1);
    std::string why;
    if (!Compile(glob, &pattern.steps, &why)) {
      *err = "line " + std::to_string(number) + ": the pattern " + std::string(line) + " is malformed: " + why;
      return false;
    }
    patterns_.push_back(std::move(pattern));
  }
  return true;
}

bool Dockerignore::Excludes(const std::string& path) const {
  bool excluded = false;
  for (const auto& pattern : patterns_) {
    // Only a pattern that can change the answer is tried: an exclusion
    // while it is kept, an exception while it is left out.
    if (pattern.exception != excluded) continue;
    const std::string_view whole = path;
    bool match = Match(pattern.steps, 0, whole, 0);
    for (auto slash = whole.find('/'); !match && slash != std::string_view::npos; slash = whole.find('/', slash + 1))
      match = Match(pattern.steps, 0, whole.substr(0, slash), 0);
    if (match) excluded = !pattern.exception;
  }
  return excluded;
}

bool Dockerignore::HasExceptions() const {
  for (const auto& pattern : patterns_)
    if (pattern.exception) return true;
  return false;
}

}  // namespace fiber::image
