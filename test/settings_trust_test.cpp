// Settings from directories other users control: the lookup of fiber.yaml
// stops at the first directory that is not the user's alone, and a settings
// file someone else could have written is refused with one line naming it
// and why (as git's safe.directory). The settings that choose what runs or
// ships say where they came from. Real files in a temporary directory; the
// cases that hand a file to another user need root (chown).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "config/resolve.hpp"
#include "config/sources_report.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"
#include "support/skip.hpp"

using fiber::config::Inputs;
using fiber::config::Resolved;
using fiber::testing::TempDir;

namespace {

constexpr uid_t kNobody = 65534;

struct World {
  TempDir root;
  std::map<std::string, std::string> env = {{"XDG_CONFIG_HOME", root.path() + "/xdg"}};
  std::string cwd = root.dir("project");
  std::string config_file;
  uid_t uid = ::geteuid();

  Inputs inputs() {
    Inputs in;
    in.getenv = [this](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    };
    in.cwd = cwd;
    in.config_file = config_file;
    in.uid = uid;
    return in;
  }
  Resolved resolved() {
    Resolved out;
    std::string err;
    REQUIRE_MESSAGE(fiber::config::Resolve(inputs(), &out, &err), err);
    return out;
  }
};

bool Root() { return ::geteuid() == 0; }

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a stranger's fiber.yaml in a world-writable directory above is not read, and is named once") {
  if (!Root()) {
    FIBER_SKIP("handing a file to another user needs root");
  }
  World w;
  const std::string shared = w.root.dir("shared");
  REQUIRE(::chmod(shared.c_str(), 01777) == 0);
  const std::string planted = w.root.write("shared/fiber.yaml", "prefetch: 7\nkubeconfig: /x/kubeconfig\n");
  REQUIRE(::chown(planted.c_str(), kNobody, kNobody) == 0);
  w.cwd = w.root.dir("shared/mine");
  const Resolved r = w.resolved();
  CHECK(r.settings.prefetch != 7);
  CHECK(r.settings.kubeconfig.empty());
  CHECK(r.sources.at("prefetch") == "default");
  CHECK(r.files.empty());
  REQUIRE(r.refused.size() == 1);
  CHECK_MESSAGE(Contains(r.refused[0], "ignoring " + planted + ": "), r.refused[0]);
  CHECK_MESSAGE(Contains(r.refused[0], "writable by anyone (mode 1777)"), r.refused[0]);
}

TEST_CASE("a fiber.yaml another user owns is refused even in the user's own directory") {
  if (!Root()) {
    FIBER_SKIP("handing a file to another user needs root");
  }
  World w;
  const std::string planted = w.root.write("project/fiber.yaml", "prefetch: 7\n");
  REQUIRE(::chown(planted.c_str(), kNobody, kNobody) == 0);
  const Resolved r = w.resolved();
  CHECK(r.settings.prefetch != 7);
  REQUIRE(r.refused.size() == 1);
  CHECK_MESSAGE(Contains(r.refused[0], planted + ": owned by "), r.refused[0]);
  CHECK_MESSAGE(Contains(r.refused[0], "uid 65534), not by you"), r.refused[0]);
}

TEST_CASE("the lookup stops at the first directory that is not the user's") {
  if (!Root()) {
    FIBER_SKIP("handing a directory to another user needs root");
  }
  World w;
  w.root.write("fiber.yaml", "prefetch: 7\n");  // the user's, but beyond a stranger's directory
  const std::string theirs = w.root.dir("theirs");
  REQUIRE(::chown(theirs.c_str(), kNobody, kNobody) == 0);
  w.cwd = w.root.dir("theirs/mine");
  const Resolved r = w.resolved();
  CHECK(r.settings.prefetch != 7);
  CHECK(r.files.empty());
  CHECK(r.refused.empty());  // nothing was found where it stopped
  CHECK(fiber::config::FindProjectFile(w.cwd).empty());
}

TEST_CASE("a group-writable fiber.yaml of the user's own is refused, and so is one in a group-writable directory") {
  World w;
  const std::string file = w.root.write("project/fiber.yaml", "prefetch: 7\n");
  REQUIRE(::chmod(file.c_str(), 0664) == 0);
  Resolved r = w.resolved();
  CHECK(r.settings.prefetch != 7);
  REQUIRE(r.refused.size() == 1);
  CHECK_MESSAGE(Contains(r.refused[0], file + ": writable by its group (mode 0664)"), r.refused[0]);

  REQUIRE(::chmod(file.c_str(), 0644) == 0);
  REQUIRE(::chmod(w.cwd.c_str(), 0775) == 0);
  r = w.resolved();
  CHECK(r.settings.prefetch != 7);
  REQUIRE(r.refused.size() == 1);
  CHECK_MESSAGE(Contains(r.refused[0], "its directory " + w.cwd + " is writable by its group"), r.refused[0]);
}

TEST_CASE("the user's own fiber.yaml, writable by them alone, is still read, from below too") {
  World w;
  const std::string file = w.root.write("project/fiber.yaml", "prefetch: 7\n");
  w.cwd = w.root.dir("project/src/deep");
  const Resolved r = w.resolved();
  CHECK(r.settings.prefetch == 7);
  CHECK(r.files == std::vector<std::string>{file});
  CHECK(r.refused.empty());
}

TEST_CASE("a user file someone else could change is refused; a named file only when anyone can write it") {
  World w;
  const std::string user = w.root.write("xdg/fiber/config.yaml", "gpu: 2\n");
  REQUIRE(::chmod(user.c_str(), 0666) == 0);
  Resolved r = w.resolved();
  CHECK(r.settings.gpu == 0);
  REQUIRE(r.refused.size() == 1);
  CHECK(Contains(r.refused[0], user + ": writable by anyone (mode 0666)"));

  // Named, it is the user's choice, whoever owns it; not a file anyone may write.
  w.config_file = w.root.write("team/settings.yaml", "prefetch: 5\n");
  if (Root()) REQUIRE(::chown(w.config_file.c_str(), kNobody, kNobody) == 0);
  CHECK(w.resolved().settings.prefetch == 5);
  REQUIRE(::chmod(w.config_file.c_str(), 0666) == 0);
  Resolved out;
  std::string err;
  CHECK_FALSE(fiber::config::Resolve(w.inputs(), &out, &err));
  CHECK(err == w.config_file + " is writable by anyone (mode 0666); fiber reads no settings any user could change");
}

TEST_CASE("the settings that choose what runs or ships say where they came from") {
  World w;
  const std::string file = w.root.write("project/fiber.yaml", "prefetch: 3\nkubeconfig: /k/config\n");
  w.env["FIBER_REGISTRY"] = "localhost:5000/p";
  const std::string shown = fiber::config::ShownAtRunSources(w.resolved());
  CHECK(shown == "registry from FIBER_REGISTRY, kubeconfig from " + file + ":2:13");
  w.env.erase("FIBER_REGISTRY");
  w.root.write("project/fiber.yaml", "prefetch: 3\n");
  CHECK(fiber::config::ShownAtRunSources(w.resolved()).empty());
}

TEST_CASE("fiber config show run under a stranger's fiber.yaml takes none of it and says so in one line") {
  if (!Root()) {
    FIBER_SKIP("handing a file to another user needs root");
  }
  fiber::testing::Fiber fiber;
  TempDir root;
  const std::string shared = root.dir("shared");
  REQUIRE(::chmod(shared.c_str(), 01777) == 0);
  const std::string planted = root.write("shared/fiber.yaml", "prefetch: 7\nkubeconfig: /x/kubeconfig\n");
  REQUIRE(::chown(planted.c_str(), kNobody, kNobody) == 0);
  auto [status, out, err] = fiber.Run({"config", "show"}, root.dir("shared/mine"));
  CHECK_MESSAGE(status == 0, err);
  CHECK_FALSE(Contains(out, planted));
  CHECK(Contains(out, "kubeconfig"));
  CHECK_MESSAGE(err == "fiber: warning: ignoring " + planted + ": its directory " + shared +
                           " is writable by anyone (mode 1777) (fiber reads no settings another "
                           "user could change)\n",
                err);
}

TEST_CASE("on a terminal, fiber run's first line names where kubeconfig and registry came from") {
  fiber::testing::Fiber fiber;
  auto [status, printed, shown] = fiber.RunOnTerminal({"run", "--kubeconfig", "/k/config", "true"});
  CHECK(status == 0);
  CHECK_MESSAGE(Contains(shown, "(local backend; kubeconfig from --kubeconfig)"), shown);

  // In a pipe the line stays as scripts read it.
  auto [piped_status, out, err] = fiber.Run({"run", "--kubeconfig", "/k/config", "true"});
  CHECK(piped_status == 0);
  CHECK_MESSAGE(Contains(err, "(local backend)\n"), err);
}

TEST_CASE("a fiber.yaml below a directory anyone may write is refused, though the lookup found it first") {
  World w;
  const std::string shared = w.root.dir("shared");
  REQUIRE(::chmod(shared.c_str(), 0777) == 0);  // not sticky: anyone may move project away
  w.root.write("shared/project/fiber.yaml", "prefetch: 7\n");
  w.cwd = w.root.dir("shared/project");
  const Resolved r = w.resolved();
  CHECK(r.settings.prefetch != 7);
  CHECK(r.files.empty());
  REQUIRE(r.refused.size() == 1);
  CHECK_MESSAGE(Contains(r.refused[0], shared + " is writable by anyone (mode 0777)"), r.refused[0]);
}

TEST_CASE("a fiber.yaml that is a FIFO is refused at once, not waited on") {
  World w;
  const std::string fifo = w.root.path() + "/project/fiber.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Resolved r = w.resolved();  // returns: nothing writes to the FIFO
  CHECK(r.files.empty());
  REQUIRE(r.refused.size() == 1);
  CHECK_MESSAGE(Contains(r.refused[0], fifo + ": not a regular file"), r.refused[0]);
}

TEST_CASE("a user file linked from a dotfiles directory of the user's is read; a link another user made is not") {
  World w;
  const std::string target = w.root.write("dotfiles/fiber.yaml", "prefetch: 7\n");
  const std::string dir = w.root.dir("xdg/fiber");
  std::filesystem::create_symlink(target, dir + "/config.yaml");
  Resolved r = w.resolved();
  CHECK(r.settings.prefetch == 7);
  CHECK(r.refused.empty());
  if (!Root()) {
    FIBER_SKIP("handing a link to another user needs root");
  }
  REQUIRE(::lchown((dir + "/config.yaml").c_str(), kNobody, kNobody) == 0);
  r = w.resolved();
  CHECK(r.settings.prefetch != 7);
  REQUIRE(r.refused.size() == 1);
  CHECK_MESSAGE(Contains(r.refused[0], "a symbolic link owned by nobody (uid 65534), not by you"), r.refused[0]);
}
