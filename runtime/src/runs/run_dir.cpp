#include "runs/run_dir.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <random>
#include <cstring>

#include "config/trusted_file.hpp"
#include "os/descriptor.hpp"

namespace fiber::runs {

std::string NewRunId() {
  std::random_device random;
  const std::uint64_t bits = (static_cast<std::uint64_t>(random()) << 32) | random();
  char buf[16];
  std::snprintf(buf, sizeof buf, "%012llx",
                static_cast<unsigned long long>(bits & 0xffffffffffffULL));
  return buf;
}

bool RunsRoot(const char* (*getenv)(const char*), std::string* root, std::string* err) {
  const char* state = getenv("XDG_STATE_HOME");
  if (state && *state == '/') {
    *root = std::string(state) + "/fiber/runs";
    return true;
  }
  std::string home;
  if (const char* env = getenv("HOME"); env && *env) home = env;
  else if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && *pw->pw_dir) home = pw->pw_dir;
  if (home.empty()) {
    // Not a shared directory such as /tmp, where others could plant links.
    *err = "cannot tell where to keep runs: HOME is unset and uid " + std::to_string(::getuid()) +
           " has no home directory in the user database; set HOME or XDG_STATE_HOME";
    return false;
  }
  *root = home + "/.local/state/fiber/runs";
  return true;
}

bool MakePrivateDirs(const std::string& path, std::string* err) {
  std::string why;
  const os::Descriptor dir(config::OpenTrustedDirectory(path, ::geteuid(), true, &why));
  if (!dir) *err = "cannot keep runs in " + path + ": " + why;
  return static_cast<bool>(dir);
}

int OpenToAppend(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
}

bool WriteWhole(const std::string& path, const std::string& text, std::string* err) {
  const std::string tmp = path + ".tmp";
  // Never through a link planted at tmp; rename replaces one at path.
  os::Descriptor fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd || !os::WriteAll(fd.get(), text) || !fd.Close()) {
    *err = "cannot write " + tmp;
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *err = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace fiber::runs
