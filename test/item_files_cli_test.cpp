// The item files of large queue items (wire/item_files.hpp, in
// wire/item_directory.hpp's directory) as a user of a shared machine meets
// them: what other users can see under /dev/shm while a run holds one, and
// that a master killed with kill -9 leaves nothing there once this user's
// next fiber command has run.
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "support/fiber_command.hpp"
#include "wire/item_directory.hpp"
#include "support/skip.hpp"

using fiber::testing::Fiber;

namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// The names in directory dir.
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

// errno of opening directory dir as the user nobody (0: it opened).
int OpenedAsNobody(const std::string& dir) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(255);
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    ::_exit(fd >= 0 ? 0 : errno);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a master killed with kill -9 while it holds a large item leaves no file after the next "
          "fiber ps; meanwhile /dev/shm names none of the user's runs") {
  Fiber fiber;
  Child run = fiber.Start({"run", built_program("held_item"), "8"});
  const std::string line = read_line(run.stdout_fd, 120);
  REQUIRE_MESSAGE(line == "held 1", "the program printed: " << line << read_all(run.stderr_fd, 5));
  const std::string id = fiber.Ps()[0]["id"];
  const std::string dir = fiber::wire::ItemDirectoryOf(id);
  std::vector<std::string> files;
  for (const std::string& name : Names(dir))
    if (name != "." && name != "..") files.push_back(name);
  REQUIRE_MESSAGE(files.size() == 1, dir);  // the item, held mapped
  struct stat item {};
  REQUIRE(::stat((dir + "/" + files[0]).c_str(), &item) == 0);
  CHECK(item.st_size >= (8 << 20));  // the item, serialized

  // What any user sees: this uid uses fiber, no run id; and nothing inside.
  for (const std::string& name : Names("/dev/shm")) CHECK_MESSAGE(name.find(id) == std::string::npos, name);
  const std::string mine = dir.substr(0, dir.rfind('/'));
  CHECK(mine == "/dev/shm/fiber-" + std::to_string(::geteuid()));
  struct stat st {};
  REQUIRE(::lstat(mine.c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));
  CHECK((st.st_mode & 07777) == 0700);
  CHECK(st.st_uid == ::geteuid());
  if (::geteuid() == 0)
    CHECK(OpenedAsNobody(mine) == EACCES);
  else
    fiber::testing::Skipped("opening it as another user needs root");

  fiber::testing::KillRecorded(fiber.Record(id)["master_pid"].get<long>());
  CHECK(wait_exit(run, 120) == 128 + SIGKILL);
  REQUIRE(Exists(dir + "/" + files[0]));  // nothing of the master's removed it
  auto [status, out, err] = fiber.Run({"ps"});
  CHECK_MESSAGE(status == 0, err);
  CHECK_FALSE(Exists(dir));
}
