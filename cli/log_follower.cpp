#include "log_follower.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "os/descriptor.hpp"

namespace fiber::cli {

void LogFollower::Poll() {
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string file = e->d_name;
    if (file.size() <= 4 || file.compare(file.size() - 4, 4, ".log") != 0) continue;
    const std::string id = file.substr(0, file.size() - 4);
    if (!only_.empty() && id != only_) continue;
    const os::Descriptor fd(::open((dir_ + "/" + file).c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) continue;
    File& f = files_[id];
    if (!f.lines)
      f.lines = std::make_unique<backend::LineSplitter>(
          [this, id](std::string_view line) { sink_(id, std::string(line)); });
    char buf[65536];
    for (ssize_t n; (n = ::pread(fd.get(), buf, sizeof buf, f.offset)) > 0;) {
      f.offset += n;
      f.lines->Feed(std::string_view(buf, static_cast<std::size_t>(n)));
    }
  }
  ::closedir(d);
}

void LogFollower::Flush() {
  Poll();
  for (auto& [id, f] : files_) f.lines->Finish();
}

}  // namespace fiber::cli
