#include "runs/run_dir.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <random>
#include <cstring>
#include <fstream>

namespace fiber::runs {

std::string NewRunId() {
  std::random_device random;
  const std::uint64_t bits = (static_cast<std::uint64_t>(random()) << 32) | random();
  char buf[16];
  std::snprintf(buf, sizeof buf, "%012llx",
                static_cast<unsigned long long>(bits & 0xffffffffffffULL));
  return buf;
}

std::string RunsRoot(const char* (*getenv)(const char*)) {
  const char* state = getenv("XDG_STATE_HOME");
  if (state && *state == '/') return std::string(state) + "/fiber/runs";
  const char* home = getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/state/fiber/runs";
}

bool MakePrivateDirs(const std::string& path, std::string* err) {
  for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string part = path.substr(0, slash);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
      *err = "cannot make " + part + ": " + std::strerror(errno);
      return false;
    }
    if (slash == std::string::npos) return true;
  }
}

bool WriteWhole(const std::string& path, const std::string& text, std::string* err) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out) {
      *err = "cannot write " + tmp;
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *err = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace fiber::runs
