// Where runs are kept and how their files are written, on a machine others
// share: never under /tmp when HOME is unset, never under a directory
// another user owns or others can write (named in one line), and never
// through a link planted where fiber writes. Real directories; the cases
// that hand one to another user need root (chown).
#include <doctest/doctest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "backend/worker_output.hpp"
#include "runs/run_dir.hpp"
#include "support/temp_dir.hpp"

using fiber::testing::TempDir;
namespace runs = fiber::runs;

namespace {

// The getenv RunsRoot takes, seeing only vars (a plain function pointer).
std::map<std::string, std::string> g_env;
const char* TestEnv(const char* name) {
  const auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

std::string Root(std::map<std::string, std::string> env) {
  g_env = std::move(env);
  std::string root, err;
  REQUIRE_MESSAGE(runs::RunsRoot(TestEnv, &root, &err), err);
  return root;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("with HOME unset, runs are kept in the user's home from the user database, not /tmp") {
  const passwd* pw = ::getpwuid(::getuid());
  REQUIRE(pw);
  CHECK(Root({}) == std::string(pw->pw_dir) + "/.local/state/fiber/runs");
  CHECK(Root({{"HOME", ""}}) == std::string(pw->pw_dir) + "/.local/state/fiber/runs");
  CHECK(Root({{"HOME", "/home/me"}}) == "/home/me/.local/state/fiber/runs");
  CHECK(Root({{"XDG_STATE_HOME", "/state"}, {"HOME", "/home/me"}}) == "/state/fiber/runs");
}

TEST_CASE("runs are not kept under a directory others can write or another user owns") {
  TempDir dir;
  std::string err;
  SUBCASE("writable by anyone") {
    const std::string shared = dir.dir("shared");
    ::chmod(shared.c_str(), 0777);
    CHECK_FALSE(runs::MakePrivateDirs(shared + "/fiber/runs", &err));
    CHECK(err == "cannot keep runs in " + shared + "/fiber/runs: " + shared + " is writable by anyone (mode 0777)");
  }
  SUBCASE("writable by its group") {
    const std::string shared = dir.dir("team");
    ::chmod(shared.c_str(), 0775);
    CHECK_FALSE(runs::MakePrivateDirs(shared + "/fiber/runs", &err));
    CHECK(err == "cannot keep runs in " + shared + "/fiber/runs: " + shared + " is writable by its group (mode 0775)");
  }
  SUBCASE("another user's") {
    if (::geteuid() != 0) return;  // only root can hand a directory over
    const std::string theirs = dir.dir("theirs");
    REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
    CHECK_FALSE(runs::MakePrivateDirs(theirs + "/state/fiber/runs", &err));
    CHECK(err.rfind("cannot keep runs in " + theirs + "/state/fiber/runs: " + theirs + " is owned by ", 0) == 0);
    CHECK(err.find("(uid 65534), not by you") != std::string::npos);
  }
  SUBCASE("the user's own, under /tmp (sticky, root's)") {
    CHECK_MESSAGE(runs::MakePrivateDirs(dir.path() + "/state/fiber/runs", &err), err);
    struct stat st{};
    REQUIRE(::stat((dir.path() + "/state/fiber/runs").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
  }
}

TEST_CASE("a link planted at a worker's log is not followed") {
  TempDir dir;
  const std::string target = dir.write("elsewhere", "theirs\n");
  const std::string log = dir.dir("run/workers") + "/w1.log";
  REQUIRE(::symlink(target.c_str(), log.c_str()) == 0);
  {
    fiber::backend::WorkerOutput out("w1", log);
    out.Write("secret output\n");
  }
  CHECK(Read(target) == "theirs\n");
  CHECK(runs::OpenToAppend(log) == -1);
  CHECK(errno == ELOOP);
}
