// Large queue items handed to the master through shared memory, when the
// putting worker runs on the master's machine and sees its /dev/shm: the
// worker writes the item into a file of the run's item directory and sends
// its name (QUEUE_PUT_FILE); the master maps the file and holds the mapping
// as the item, read in place by its consumer, then removes the file (or
// keeps a few, renamed, for writers to reuse). That skips CURVE, the
// socket's copies both ways and a copy out of the file. The run's
// directory (wire/item_directory.hpp: private to this user, locked while
// its master lives) is the master's and removed when it ends; those of
// masters killed are removed by the next master of this user on this
// machine, and by fiber ps, run and prune. A worker uses it only when it
// sees it. Thread-safe (no state but the directory's descriptor).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace fiber::wire {

class ItemFiles;

/// An item file the master has mapped (ItemFiles::Map): its bytes, read in
/// place, until this is destroyed; then the file is kept for reuse or
/// removed. Empty when default-made. Thread-safe to destroy anywhere.
class MappedItem {
 public:
  MappedItem() = default;
  MappedItem(MappedItem&& other) noexcept { *this = std::move(other); }
  MappedItem& operator=(MappedItem&& other) noexcept;
  ~MappedItem() { Release(); }
  MappedItem(const MappedItem&) = delete;
  MappedItem& operator=(const MappedItem&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(address_), size_}; }

 private:
  friend class ItemFiles;
  void Release();
  std::shared_ptr<ItemFiles> files_;
  void* address_ = nullptr;
  std::size_t size_ = 0;
  std::string name_;
};

class ItemFiles : public std::enable_shared_from_this<ItemFiles> {
 public:
  /// Items at least this large go through a file.
  static constexpr std::size_t kSmallest = std::size_t{64} << 10;
  /// Files the master has read, up to this many of at most this size, are
  /// kept (free-0, free-1, ...) for writers to reuse: the kernel need not
  /// allocate and clear their pages again. The rest are removed. Both
  /// sides go round the places in order, so that each usually finds what
  /// it looks for (a kept file, a free place) at the first try.
  static constexpr unsigned kRecycled = 8;
  static constexpr std::size_t kRecycledBytes = std::size_t{4} << 20;
  /// Places tried, from where the last one was found, before giving up.
  static constexpr unsigned kRecycledTries = 2;

  /// The master's: makes the run's directory (or empties the one a killed
  /// master of this run id left), first removing those of masters gone
  /// (RemoveAbandonedItemDirectories);
  /// nullptr with *err when it cannot (items then travel on the socket).
  static std::shared_ptr<ItemFiles> Create(const std::string& run_id, std::string* err);
  /// A worker's: the run's directory when this process sees it; nullptr
  /// when not (another machine, a container's own /dev/shm).
  static std::shared_ptr<ItemFiles> Open(const std::string& run_id);
  /// The master's removes the directory with what is left in it (items
  /// written by workers killed before sending their name).
  ~ItemFiles();
  ItemFiles(const ItemFiles&) = delete;
  ItemFiles& operator=(const ItemFiles&) = delete;

  /// Writes item into a file named after worker_id (which the master
  /// checks against the sender), new or a kept one; its name, or "" when
  /// it cannot (the item then travels on the socket).
  std::string Write(const std::string& worker_id, const std::string& item);
  /// Maps the file name that peer sent, as *item; false with *err when
  /// it is not one of peer's item files or cannot be mapped. A worker
  /// of this user that shrank the file while it is mapped would fault the
  /// master; the same user could kill it as well.
  [[nodiscard]] bool Map(const std::string& peer, const std::string& name, MappedItem* item,
                         std::string* err);

 private:
  friend class MappedItem;
  ItemFiles(std::string path, int fd, bool owner) : path_(std::move(path)), fd_(fd), owner_(owner) {}
  /// Removes every file in the directory.
  void RemoveAll();
  /// A file read: renamed for a writer to reuse (small enough, and a
  /// place free), else removed.
  void Recycle(const std::string& name, std::size_t size);
  /// Tries move on the kept places' names from cursor_ on, up to
  /// kRecycledTries of them; true once one did (cursor_ then past it).
  bool Recycled(const std::function<bool(const std::string& place)>& move);
  std::string path_;
  int fd_;      // the directory
  bool owner_;  // the master's: removed with it
  std::atomic<unsigned> cursor_{0};  // the next kept place to try
};

}  // namespace fiber::wire
