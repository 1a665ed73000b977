// The run's item files (wire/item_files.hpp, in wire/item_directory.hpp's
// directory) without a master: a worker's
// large item written and taken back whole, once, read in place while the
// master holds it and its file kept for the next after; what the master
// refuses to read; kept files reused round after round; when a worker does not use the
// directory; where it is; and what the master leaves behind (nothing).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "wire/item_directory.hpp"
#include "wire/item_files.hpp"
#include "support/skip.hpp"

using fiber::wire::ItemFiles;

namespace {

std::string NewRunId() { return "itemfilestest" + std::to_string(::getpid()); }
std::string Directory(const std::string& run) { return fiber::wire::ItemDirectoryOf(run); }
ino_t Inode(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}
bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Maps the file name as peer's, copies its bytes out and lets it go.
bool Take(ItemFiles& master, const std::string& peer, const std::string& name, std::string* got,
          std::string* err) {
  fiber::wire::MappedItem item;
  if (!master.Map(peer, name, &item, err)) return false;
  *got = std::string(item.bytes());
  return true;
}

// A run's directory, made by its master and opened by a worker.
struct Both {
  std::string run = NewRunId();
  std::shared_ptr<ItemFiles> master, worker;
  Both() {
    std::string err;
    master = ItemFiles::Create(run, &err);
    REQUIRE_MESSAGE(master, err);
    worker = ItemFiles::Open(run);
    REQUIRE(worker);
  }
};

}  // namespace

TEST_CASE("a worker's item comes back whole, once, and the master leaves nothing behind") {
  auto [run, master, worker] = Both();
  std::string err;
  std::string item(3 << 20, '\0');
  for (std::size_t i = 0; i < item.size(); ++i) item[i] = static_cast<char>(i * 13);
  const std::string name = worker->Write("w7", item);
  REQUIRE(name.rfind("w7-", 0) == 0);
  std::string got;
  REQUIRE_MESSAGE(Take(*master, "w7", name, &got, &err), err);
  CHECK(got == item);
  CHECK_FALSE(Take(*master, "w7", name, &got, &err));  // read once
  CHECK(err.find("cannot open") != std::string::npos);
  CHECK(Exists(Directory(run) + "/free-0"));  // kept for the next write

  // The next item is written over the kept file, cut to its own size.
  const ino_t kept = Inode(Directory(run) + "/free-0");
  const std::string next = worker->Write("w8", "a short one");
  CHECK(Inode(Directory(run) + "/" + next) == kept);
  CHECK_FALSE(Exists(Directory(run) + "/free-0"));
  REQUIRE(Take(*master, "w8", next, &got, &err));
  CHECK(got == "a short one");
  // One larger than a kept file may be is removed once read.
  const std::string large = worker->Write("w8", std::string(ItemFiles::kRecycledBytes + 1, 'x'));
  REQUIRE(Take(*master, "w8", large, &got, &err));
  CHECK_FALSE(Exists(Directory(run) + "/" + large));
  CHECK_FALSE(Exists(Directory(run) + "/free-1"));

  const std::string left = worker->Write("w7", "an item never sent");  // its worker killed
  REQUIRE_FALSE(left.empty());
  worker.reset();
  master.reset();
  CHECK_FALSE(Exists(Directory(run) + "/" + left));
  CHECK_FALSE(Exists(Directory(run)));
}

TEST_CASE("an item the master holds is read in place; its file is reused only once let go") {
  auto [run, master, worker] = Both();
  std::string err;
  const std::string name = worker->Write("w4", "held in place");
  fiber::wire::MappedItem held;
  REQUIRE_MESSAGE(master->Map("w4", name, &held, &err), err);
  // A writer meanwhile makes a file of its own, not the one held.
  const std::string other = worker->Write("w4", "another");
  CHECK(Exists(Directory(run) + "/" + name));
  CHECK_FALSE(Exists(Directory(run) + "/free-0"));
  CHECK(held.bytes() == "held in place");
  fiber::wire::MappedItem moved = std::move(held);
  CHECK(held.bytes().empty());
  CHECK(moved.bytes() == "held in place");
  moved = fiber::wire::MappedItem();
  CHECK_FALSE(Exists(Directory(run) + "/" + name));
  CHECK(Exists(Directory(run) + "/free-0"));
  // The directory outlives its master while an item of it is held.
  REQUIRE(master->Map("w4", other, &held, &err));
  master.reset();
  worker.reset();
  CHECK(Exists(Directory(run)));
  CHECK(held.bytes() == "another");
  held = fiber::wire::MappedItem();
  CHECK_FALSE(Exists(Directory(run)));
}

TEST_CASE("with several items held at once, every write after the first few reuses a kept file") {
  auto [run, master, worker] = Both();
  std::string err;
  std::deque<fiber::wire::MappedItem> held;  // three held while the next is written
  std::set<ino_t> seen;
  int reused = 0;
  const int writes = 40;
  for (int i = 0; i < writes; ++i) {
    const std::string name = worker->Write("w2", std::string(64 << 10, static_cast<char>('a' + i % 26)));
    REQUIRE_FALSE(name.empty());
    reused += seen.insert(Inode(Directory(run) + "/" + name)).second ? 0 : 1;
    REQUIRE_MESSAGE(master->Map("w2", name, &held.emplace_back(), &err), err);
    CHECK(held.back().bytes()[0] == static_cast<char>('a' + i % 26));
    if (held.size() > 3) held.pop_front();
  }
  CHECK(reused == writes - 4);  // only the first four made files
  CHECK(seen.size() == 4);
}

TEST_CASE("the master reads only the asker's own item files, regular and of its user") {
  auto [run, master, worker] = Both();
  std::string err;
  const std::string theirs = worker->Write("w1", "w1's item");
  std::string got;
  CHECK_FALSE(Take(*master, "w2", theirs, &got, &err));  // another worker's
  CHECK(err == "'" + theirs + "' is not an item file of worker 'w2'");
  for (const std::string name : {"../w2-1", "w2-1/x", "w2-", "w2-1a", ""})
    CHECK_FALSE(Take(*master, "w2", name, &got, &err));
  CHECK_FALSE(Take(*master, "", "-1", &got, &err));  // the master sends none
  REQUIRE(::symlink("/etc/hostname", (Directory(run) + "/w2-5").c_str()) == 0);
  CHECK_FALSE(Take(*master, "w2", "w2-5", &got, &err));
  CHECK(err.find("w2-5") != std::string::npos);
  REQUIRE(::mkdir((Directory(run) + "/w2-6").c_str(), 0700) == 0);
  CHECK_FALSE(Take(*master, "w2", "w2-6", &got, &err));
  CHECK(err.find("not a regular file") != std::string::npos);
  ::rmdir((Directory(run) + "/w2-6").c_str());
  REQUIRE(Take(*master, "w1", theirs, &got, &err));  // still there for its owner
  CHECK(got == "w1's item");
}

TEST_CASE("a worker uses no directory it does not see private: items then travel on the socket") {
  const std::string run = NewRunId();
  CHECK_FALSE(ItemFiles::Open(run));  // no master on this machine
  std::string err;
  auto master = ItemFiles::Create(run, &err);
  REQUIRE_MESSAGE(master, err);
  REQUIRE(::chmod(Directory(run).c_str(), 0755) == 0);
  CHECK_FALSE(ItemFiles::Open(run));
  CHECK_FALSE(ItemFiles::Create(run, &err));  // nor does the master
  CHECK(err == Directory(run) + " is not a private directory of this user");
  REQUIRE(::chmod(Directory(run).c_str(), 0700) == 0);
  CHECK(ItemFiles::Open(run));
}

TEST_CASE("the run's directory is in this user's own, both mode 0700: /dev/shm names no run") {
  auto [run, master, worker] = Both();
  const std::string mine = "/dev/shm/fiber-" + std::to_string(::geteuid());
  CHECK(Directory(run) == mine + "/" + run + ".items");
  for (const std::string& path : {mine, Directory(run)}) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(st.st_uid == ::geteuid());
  }
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm"))
    CHECK(entry.path().filename().string().find(run) == std::string::npos);
}

TEST_CASE("a link in place of a run's directory is not followed, even to a private one") {
  auto [run, master, worker] = Both();
  const std::string link = NewRunId() + "link";
  REQUIRE(::symlink(Directory(run).c_str(), Directory(link).c_str()) == 0);
  CHECK_FALSE(ItemFiles::Open(link));
  std::string err;
  CHECK_FALSE(ItemFiles::Create(link, &err));
  CHECK(err == Directory(link) + " is not a private directory of this user");
  fiber::wire::RemoveAbandonedItemDirectories();
  CHECK(Exists(Directory(run)));  // held by its master: neither removed nor emptied through the link
  ::unlink(Directory(link).c_str());
}

TEST_CASE("another user's directory in place of a run's is neither used nor removed") {
  if (::geteuid() != 0) {
    FIBER_SKIP("handing a directory to another user needs root");
  }
  auto [run, master, worker] = Both();  // this user's directory is there
  const std::string theirs = NewRunId() + "theirs";
  REQUIRE(::mkdir(Directory(theirs).c_str(), 0700) == 0);
  REQUIRE(::chown(Directory(theirs).c_str(), 65534, 65534) == 0);
  CHECK_FALSE(ItemFiles::Open(theirs));
  std::string err;
  CHECK_FALSE(ItemFiles::Create(theirs, &err));
  CHECK(err == Directory(theirs) + " is not a private directory of this user");
  fiber::wire::RemoveAbandonedItemDirectories();
  CHECK(Exists(Directory(theirs)));
  ::rmdir(Directory(theirs).c_str());
}

TEST_CASE("the directories of masters gone are removed, not those of masters alive") {
  const std::string gone = NewRunId() + "gone";
  {
    std::string made;
    REQUIRE_MESSAGE(ItemFiles::Create(gone + "first", &made), made);  // this user's directory, kept
  }
  REQUIRE(::mkdir(Directory(gone).c_str(), 0700) == 0);  // its master killed: never removed
  auto orphan = ItemFiles::Open(gone);
  REQUIRE(orphan);
  const std::string left = orphan->Write("w3", "written before the kill");
  orphan.reset();
  REQUIRE(Exists(Directory(gone) + "/" + left));
  // Where fiber used to make them, of a master gone before this fiber came.
  const std::string legacy = "/dev/shm/fiber-" + gone + ".items";
  REQUIRE(::mkdir(legacy.c_str(), 0700) == 0);
  REQUIRE(::close(::open((legacy + "/w1-0").c_str(), O_CREAT | O_WRONLY, 0600)) == 0);
  auto [alive, alive_master, alive_worker] = Both();
  fiber::wire::RemoveAbandonedItemDirectories();  // as a master starting does, and fiber ps, run and prune
  CHECK_FALSE(Exists(Directory(gone)));
  CHECK_FALSE(Exists(legacy));
  std::string err;
  CHECK(Exists(Directory(alive)));
  CHECK_FALSE(ItemFiles::Create(alive, &err));  // nor is a live one taken over
  CHECK(err == Directory(alive) + " is held by another master of run " + alive);
  // A new master of the run id that was killed starts afresh.
  REQUIRE(::mkdir(Directory(gone).c_str(), 0700) == 0);
  auto again = ItemFiles::Create(gone, &err);
  REQUIRE_MESSAGE(again, err);
  auto worker = ItemFiles::Open(gone);
  REQUIRE(worker);
  const std::string name = worker->Write("w3", "after");
  std::string got;
  REQUIRE(Take(*again, "w3", name, &got, &err));
  CHECK(got == "after");
}
