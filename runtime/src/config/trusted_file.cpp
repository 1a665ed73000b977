#include "config/trusted_file.hpp"

#include <pwd.h>
#include <sys/stat.h>

#include <cstdio>

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

// Why st may be changed by users other than its owner, or "".
std::string WritableByOthers(const struct stat& st) {
  if (st.st_mode & S_IWOTH) return "writable by anyone (mode " + Mode(st.st_mode) + ")";
  if (st.st_mode & S_IWGRP) return "writable by its group (mode " + Mode(st.st_mode) + ")";
  return "";
}

}  // namespace

std::string NotYoursAlone(const std::string& path, uid_t uid) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return "";
  // Root too: a file another uid owns is that user's to change.
  if (st.st_uid != uid) return "owned by " + Owner(st.st_uid) + ", not by you";
  return WritableByOthers(st);
}

std::string NotSafeParent(const std::string& path, uid_t uid) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return "";
  if (st.st_uid != uid && st.st_uid != 0) return "owned by " + Owner(st.st_uid) + ", not by you";
  // Others may add to a sticky directory of root's (/tmp), not move or
  // replace what is in it.
  if (st.st_uid == 0 && (st.st_mode & S_ISVTX)) return "";
  return WritableByOthers(st);
}

std::string WritableByAnyone(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !(st.st_mode & S_IWOTH)) return "";
  return "writable by anyone (mode " + Mode(st.st_mode) + ")";
}

}  // namespace fiber::config
