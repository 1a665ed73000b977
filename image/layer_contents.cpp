#include "image/layer_contents.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace fiber::image {

namespace {

constexpr int kMaxLinks = 40;  // as the kernel follows at most

std::vector<std::string> Components(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at <= path.size()) {
    const auto slash = path.find('/', at);
    const std::string part = path.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
    if (!part.empty() && part != ".") parts.push_back(part);
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return parts;
}

std::string Parent(const std::string& relative) {
  const auto slash = relative.rfind('/');
  return slash == std::string::npos ? "" : relative.substr(0, slash);
}

}  // namespace

void LayerContents::Parents(const std::string& relative) {
  for (std::string dir = Parent(relative); !dir.empty(); dir = Parent(dir))
    entries_.emplace(dir, Entry{'5', 0755, 0, {}, {}});
}

void LayerContents::AddDirectory(const std::string& path, int mode) {
  const std::string relative = path.substr(path.find_first_not_of('/'));
  Parents(relative);
  entries_[relative] = Entry{'5', mode, 0, {}, {}};
}

bool LayerContents::ReplaceFile(const std::string& path, const std::string& source,
                                std::int64_t* bytes, std::string* err) {
  const auto it = entries_.find(path.substr(path.find_first_not_of('/')));
  if (it == entries_.end() || it->second.type != '0') {
    *err = path + " is no file of the image";
    return false;
  }
  struct stat st;
  if (::stat(source.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = "cannot read " + source + ": " + std::strerror(errno);
    return false;
  }
  it->second.size = st.st_size;
  it->second.source = source;
  *bytes = st.st_size;
  return true;
}

bool LayerContents::Add(const std::string& path, std::int64_t* bytes, std::string* err) {
  *bytes = 0;
  return Resolve(path, 0, bytes, err);
}

// Follows path from the root one component at a time, as the kernel would,
// recording each link met and, at the end, the file or directory itself.
bool LayerContents::Resolve(const std::string& path, int depth, std::int64_t* bytes,
                            std::string* err) {
  if (depth > kMaxLinks) {
    *err = "too many levels of symbolic links in " + path;
    return false;
  }
  const std::vector<std::string> parts = Components(path);
  std::string relative;  // resolved so far, no leading '/'
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "..") {
      relative = Parent(relative);
      continue;
    }
    const std::string next = relative.empty() ? parts[i] : relative + "/" + parts[i];
    const std::string host = "/" + next;
    struct stat st;
    if (::lstat(host.c_str(), &st) != 0) {
      *err = "cannot add " + path + " to the image: " + host + ": " + std::strerror(errno);
      return false;
    }
    const bool last = i + 1 == parts.size();
    if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
      const ssize_t n = ::readlink(host.c_str(), target.data(), target.size());
      if (n < 0) {
        *err = "cannot read the link " + host + ": " + std::strerror(errno);
        return false;
      }
      target.resize(static_cast<std::size_t>(n));
      Parents(next);
      entries_.emplace(next, Entry{'2', 0777, 0, target, {}});
      std::string rest = target[0] == '/' ? target : "/" + relative + "/" + target;
      for (std::size_t j = i + 1; j < parts.size(); ++j) rest += "/" + parts[j];
      return Resolve(rest, depth + 1, bytes, err);
    }
    if (S_ISDIR(st.st_mode)) {
      Parents(next);
      entries_.emplace(next, Entry{'5', 0755, 0, {}, {}});
      if (last) return Walk(next, depth, bytes, err);
    } else if (!last) {
      *err = "cannot add " + path + " to the image: " + host + " is not a directory";
      return false;
    } else if (S_ISREG(st.st_mode)) {
      Parents(next);
      const int mode = (st.st_mode & 0111) ? 0755 : 0644;
      if (entries_.emplace(next, Entry{'0', mode, st.st_size, {}, {}}).second) *bytes += st.st_size;
    } else {
      *err = "cannot add " + host + " to the image: it is not a file, a directory or a link";
      return false;
    }
    relative = next;
  }
  return true;
}

bool LayerContents::Walk(const std::string& dir, int depth, std::int64_t* bytes, std::string* err) {
  if (!walked_.insert(dir).second) return true;  // reached again through a link
  const std::string host = "/" + dir;
  DIR* d = ::opendir(host.c_str());
  if (!d) {
    *err = "cannot read the directory " + host + ": " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.push_back(e->d_name);
  ::closedir(d);
  for (const auto& name : names)
    if (!Resolve(host + "/" + name, depth, bytes, err)) return false;
  return true;
}

bool LayerContents::WriteTo(engine::TarWriter* tar, std::string* err) const {
  for (const auto& [path, e] : entries_) {
    const bool ok = e.type == '5'   ? tar->Directory(path, e.mode, err)
                    : e.type == '2' ? tar->Symlink(path, e.link, err)
                                    : tar->FileFrom(path, e.mode, e.source.empty() ? "/" + path : e.source,
                                                    e.size, err);
    if (!ok) return false;
  }
  return true;
}

}  // namespace fiber::image
