#include "log_follower.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <queue>
#include <vector>

namespace fiber::cli {

namespace {

constexpr std::size_t kBlock = 65536;

}  // namespace

void LogFollower::ReadNewStamps(File& f) {
  const os::Descriptor fd(::open(f.stamps_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return;
  char buf[kBlock];
  std::string text;
  for (ssize_t n; (n = ::pread(fd.get(), buf, sizeof buf, f.stamps_offset)) > 0;) {
    const std::string_view block(buf, static_cast<std::size_t>(n));
    const std::size_t whole = block.rfind('\n');
    if (whole == std::string_view::npos) break;  // a stamp being written: next time
    f.stamps_offset += static_cast<long long>(whole + 1);
    text.assign(block.substr(0, whole + 1));
    runs::LogStamp stamp;
    for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
      text[nl] = '\0';
      if (runs::ParseStamp(text.c_str() + at, f.stamps.empty() ? nullptr : &f.stamps.back(), &stamp))
        f.stamps.push_back(stamp);
    }
  }
}

void LogFollower::Refill(File& f) {
  char buf[kBlock];
  while (f.ready.empty() && f.fd) {
    const ssize_t n = ::pread(f.fd.get(), buf, sizeof buf, f.offset);
    if (n <= 0) {
      f.fd.Reset(-1);
      return;
    }
    f.offset += n;
    if (stamps_ == Stamps::kWrite) {
      f.now = runs::WallClock::now();
      runs::AppendStamp(f.stamps_path, {f.offset, f.now});
    }
    f.lines->Feed(std::string_view(buf, static_cast<std::size_t>(n)));
  }
}

void LogFollower::Poll() {
  for (const Source& source : sources_) Open(source);
  Drain(true);
  for (auto& [id, f] : files_) f.fd.Reset(-1);
}

void LogFollower::Open(const Source& source) {
  DIR* d = ::opendir(source.dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string file = e->d_name;
    if (file.size() <= 4 || file.compare(file.size() - 4, 4, ".log") != 0) continue;
    const std::string id = file.substr(0, file.size() - 4);
    if (!source.only.empty() && id != source.only) continue;
    File& f = files_[id];
    if (!f.lines) {
      f.log = source.dir + "/" + file;
      f.stamps_path = runs::StampsPath(f.log);
      f.lines = std::make_unique<backend::LineSplitter>([this, &f](std::string_view line) {
        // A piece of a line too long is counted as if a newline ended it:
        // a byte off, for finding its stamp.
        f.line_end += static_cast<long long>(line.size()) + 1;
        runs::WallClock::time_point at = f.now;
        if (stamps_ == Stamps::kRead) {
          while (!f.stamps.empty() && f.stamps.front().end < f.line_end) f.stamps.pop_front();
          at = f.stamps.empty() ? f.fallback : f.stamps.front().at;
        }
        f.ready.push_back({std::string(line), at});
      });
    }
    f.fd.Reset(::open(f.log.c_str(), O_RDONLY | O_CLOEXEC));
    if (!f.fd) continue;
    if (stamps_ == Stamps::kRead) {
      // Lines not stamped yet were written by the time the log last changed.
      struct stat st {};
      f.fallback = ::fstat(f.fd.get(), &st) == 0
                       ? runs::WallClock::time_point(std::chrono::duration_cast<runs::WallClock::duration>(
                             std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)))
                       : runs::WallClock::now();
      ReadNewStamps(f);
    }
  }
  ::closedir(d);
}

void LogFollower::Drain(bool refill) {
  // The earliest ready line of any file first; of lines at one time, the
  // file's order, then the files' order.
  struct Head {
    runs::WallClock::time_point at;
    const std::string* id;
    File* f;
    bool operator>(const Head& other) const {
      return at != other.at ? at > other.at : *id > *other.id;
    }
  };
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (auto& [id, f] : files_) {
    if (refill) Refill(f);
    if (!f.ready.empty()) heads.push({f.ready.front().at, &id, &f});
  }
  while (!heads.empty()) {
    const auto [at, id, f] = heads.top();
    heads.pop();
    Line line = std::move(f->ready.front());
    f->ready.pop_front();
    sink_(*id, line.text, line.at);
    if (f->ready.empty() && refill) Refill(*f);
    if (!f->ready.empty()) heads.push({f->ready.front().at, id, f});
  }
}

void LogFollower::Flush() {
  Poll();
  for (auto& [id, f] : files_) f.lines->Finish();
  Drain(false);
}

}  // namespace fiber::cli
