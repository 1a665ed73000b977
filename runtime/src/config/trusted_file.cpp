#include "config/trusted_file.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "os/descriptor.hpp"

namespace fiber::config {

namespace {

std::string Mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string Owner(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  const std::string number = "uid " + std::to_string(uid);
  return pw ? std::string(pw->pw_name) + " (" + number + ")" : number;
}

std::string OwnedByOther(const struct stat& st) { return "owned by " + Owner(st.st_uid) + ", not by you"; }

// Why st may be changed by users other than its owner, or "".
std::string WritableByOthers(const struct stat& st) {
  if (st.st_mode & S_IWOTH) return "writable by anyone (mode " + Mode(st.st_mode) + ")";
  if (st.st_mode & S_IWGRP) return "writable by its group (mode " + Mode(st.st_mode) + ")";
  return "";
}

// The names of path, a link's target spliced in as the walk meets it.
std::vector<std::string> Names(const std::string& path) {
  std::vector<std::string> names;
  for (std::size_t at = 0; at < path.size();) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    if (end > at) names.push_back(path.substr(at, end - at));
    at = end + 1;
  }
  return names;
}

// The target of the symbolic link `name` in dir, when uid or root made it;
// false with *err ("PATH is a symbolic link owned by ...", or the system's
// reason) and errno set otherwise. where names the link in messages.
bool TrustedLinkTarget(int dir, const std::string& name, const std::string& where, uid_t uid,
                       std::string* target, std::string* err) {
  struct stat link{};
  char text[4096];
  ssize_t n = -1;
  if (::fstatat(dir, name.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(link.st_mode))
    n = ::readlinkat(dir, name.c_str(), text, sizeof text - 1);
  if (n <= 0) {
    *err = "cannot open " + where + ": " + std::strerror(ENOTDIR);
    errno = ENOTDIR;
    return false;
  }
  if (link.st_uid != uid && link.st_uid != 0) {
    *err = where + " is a symbolic link " + OwnedByOther(link);
    errno = EACCES;
    return false;
  }
  target->assign(text, static_cast<std::size_t>(n));
  return true;
}

// Whether the open directory fd, at where, is safe to walk through
// (NotSafeParent); false with *err, and errno, when it is not.
bool SafeParent(int fd, const std::string& where, uid_t uid, std::string* err) {
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    *err = "cannot read " + where + ": " + std::strerror(errno);
    return false;
  }
  if (const std::string why = NotSafeParent(st, uid); !why.empty()) {
    *err = where + " is " + why;
    errno = EACCES;
    return false;
  }
  return true;
}

}  // namespace

std::string NotYoursAlone(const struct stat& st, uid_t uid) {
  // Root too: a file another uid owns is that user's to change.
  if (st.st_uid != uid) return OwnedByOther(st);
  return WritableByOthers(st);
}

std::string NotSafeParent(const struct stat& st, uid_t uid) {
  if (st.st_uid != uid && st.st_uid != 0) return OwnedByOther(st);
  // Others may add to a sticky directory of root's (/tmp), not move or
  // replace what is in it.
  if (st.st_uid == 0 && (st.st_mode & S_ISVTX)) return "";
  return WritableByOthers(st);
}

std::string WritableByAnyone(const struct stat& st) {
  if (!(st.st_mode & S_IWOTH)) return "";
  return "writable by anyone (mode " + Mode(st.st_mode) + ")";
}

int OpenTrustedDirectory(const std::string& path, uid_t uid, bool make, std::string* err) {
  if (path.empty() || path[0] != '/') {
    *err = "'" + path + "' is not an absolute path";
    errno = EINVAL;
    return -1;
  }
  constexpr int kDirectory = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
  os::Descriptor dir(::open("/", kDirectory));
  std::string walked;  // the path as walked so far, links resolved: what messages name
  const auto Check = [&](const std::string& where) { return SafeParent(dir.get(), where, uid, err); };
  if (!dir || !Check("/")) return -1;
  std::vector<std::string> names = Names(path);
  std::reverse(names.begin(), names.end());  // a stack: the next name last
  int links = 0;
  while (!names.empty()) {
    const std::string name = std::move(names.back());
    names.pop_back();
    if (name == ".") continue;
    const std::string where = walked + "/" + name;
    if (name == "..") {
      // Up from what was walked, which is checked already down to it.
      const std::size_t slash = walked.rfind('/');
      walked = slash == std::string::npos ? "" : walked.substr(0, slash);
      dir.Reset(::openat(dir.get(), "..", kDirectory));
      if (!dir) {
        *err = "cannot open " + (walked.empty() ? "/" : walked) + ": " + std::strerror(errno);
        return -1;
      }
      continue;
    }
    int next = ::openat(dir.get(), name.c_str(), kDirectory);
    if (next < 0 && errno == ENOENT && make) {
      if (::mkdirat(dir.get(), name.c_str(), 0700) != 0 && errno != EEXIST) {
        *err = "cannot make " + where + ": " + std::strerror(errno);
        return -1;
      }
      next = ::openat(dir.get(), name.c_str(), kDirectory);
    }
    if (next < 0 && (errno == ELOOP || errno == ENOTDIR)) {
      // A symbolic link (or not a directory at all): followed only when
      // this user or root made it, and not forever.
      std::string target;
      if (!TrustedLinkTarget(dir.get(), name, where, uid, &target, err)) return -1;
      if (++links > 40) {
        *err = "cannot open " + path + ": " + std::strerror(ELOOP);
        errno = ELOOP;
        return -1;
      }
      const std::vector<std::string> more = Names(target);
      names.insert(names.end(), more.rbegin(), more.rend());
      if (target[0] == '/') {
        walked.clear();
        dir.Reset(::open("/", kDirectory));
        if (!dir || !Check("/")) return -1;
      }
      continue;
    }
    if (next < 0) {
      const int error = errno;
      *err = "cannot open " + where + ": " + std::strerror(error);
      errno = error;
      return -1;
    }
    dir.Reset(next);
    walked = where;
    if (!Check(walked)) return -1;
  }
  return dir.Release();
}

int OpenTrustedFile(int dir, const std::string& name, uid_t uid, std::string* why) {
  os::Descriptor fd(::openat(dir, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
  struct stat st{};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    const int error = errno;
    *why = error == ELOOP ? "a symbolic link" : std::strerror(error);
    errno = error;
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = "not a regular file";
    errno = EINVAL;
    return -1;
  }
  if (std::string reason = NotYoursAlone(st, uid); !reason.empty()) {
    *why = std::move(reason);
    errno = EACCES;
    return -1;
  }
  // Reads block as on any file from here.
  if (::fcntl(fd.get(), F_SETFL, O_RDONLY) != 0) {
    *why = std::strerror(errno);
    return -1;
  }
  return fd.Release();
}

int OpenTrustedPath(const std::string& path, uid_t uid, std::string* why) {
  std::string current = path;
  for (int links = 0;; ++links) {
    const std::size_t slash = current.rfind('/');
    if (slash == std::string::npos || slash + 1 == current.size()) {
      *why = "not a file's absolute path";
      errno = EINVAL;
      return -1;
    }
    const std::string parent = slash == 0 ? "/" : current.substr(0, slash);
    const std::string name = current.substr(slash + 1);
    const os::Descriptor dir(OpenTrustedDirectory(parent, uid, false, why));
    if (!dir) return -1;
    const int fd = OpenTrustedFile(dir.get(), name, uid, why);
    if (fd >= 0 || errno != ELOOP) return fd;
    // A link (a dotfile manager's): followed when the user or root made it.
    std::string to;
    if (!TrustedLinkTarget(dir.get(), name, current, uid, &to, why)) return -1;
    if (links == 40) {
      *why = std::strerror(ELOOP);
      errno = ELOOP;
      return -1;
    }
    current = to[0] == '/' ? to : parent + "/" + to;
  }
}

}  // namespace fiber::config
