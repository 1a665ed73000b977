// Large queue items handed to the master through shared memory, when the
// putting worker runs on the master's machine and sees its /dev/shm: the
// worker writes the item into a file of the run's item directory and sends
// its name (QUEUE_PUT_FILE), the master reads the file and removes it (or
// keeps a few, renamed, for writers to reuse). That skips CURVE and the
// socket's copies both ways. The directory
// (/dev/shm/fiber-RUN.items, mode 0700) is the master's, locked (flock)
// while it lives and removed when it ends; a master starting removes those
// of this user's masters that died without removing theirs. A worker uses
// it only when it is there, a directory of its own user and no one else's.
// Thread-safe (no state but the directory's descriptor).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace fiber::wire {

class ItemFiles {
 public:
  /// Items at least this large go through a file.
  static constexpr std::size_t kSmallest = std::size_t{64} << 10;
  /// Files the master has read, up to this many of at most this size, are
  /// kept (free-0, free-1, ...) for writers to reuse: the kernel need not
  /// allocate and clear their pages again. The rest are removed.
  static constexpr int kRecycled = 4;
  static constexpr std::size_t kRecycledBytes = std::size_t{4} << 20;

  /// The master's: makes the run's directory (or empties the one a killed
  /// master of this run id left), first removing those of masters gone;
  /// nullptr with *err when it cannot (items then travel on the socket).
  static std::unique_ptr<ItemFiles> Create(const std::string& run_id, std::string* err);
  /// A worker's: the run's directory when this process sees it; nullptr
  /// when not (another machine, a container's own /dev/shm).
  static std::unique_ptr<ItemFiles> Open(const std::string& run_id);
  /// The master's removes the directory with what is left in it (items
  /// written by workers killed before sending their name).
  ~ItemFiles();
  ItemFiles(const ItemFiles&) = delete;
  ItemFiles& operator=(const ItemFiles&) = delete;

  /// Writes item into a file named after worker_id (which the master
  /// checks against the sender), new or a kept one; its name, or "" when
  /// it cannot (the item then travels on the socket).
  std::string Write(const std::string& worker_id, const std::string& item);
  /// Reads the file name that peer sent, then keeps it for reuse or
  /// removes it; false with *err when it is not one of peer's item files
  /// or cannot be read.
  [[nodiscard]] bool Take(const std::string& peer, const std::string& name, std::string* item,
                          std::string* err);

 private:
  ItemFiles(std::string path, int fd, bool owner) : path_(std::move(path)), fd_(fd), owner_(owner) {}
  /// Removes every file in the directory.
  void RemoveAll();
  std::string path_;
  int fd_;      // the directory
  bool owner_;  // the master's: removed with it
};

}  // namespace fiber::wire
