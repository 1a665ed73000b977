// Run records another user planted: every fiber command that reads the
// runs root (ps, ps RUN, top --once, logs, stop, rm, prune) refuses a run
// whose directory or record is not the user's alone, or every run when the
// root is reached through another user's directory or link. Refused means
// not read further: the planted record's kubeconfig names a credential
// plugin that would run as the user if its Kubernetes master were asked
// about (master: cluster), and it never runs; one line says why; nothing
// planted is removed. The real fiber binary; another user (nobody) by
// chown, so the cases need root.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"
#include "support/skip.hpp"

using fiber::testing::Fiber;
using fiber::testing::TempDir;

namespace {

constexpr uid_t kNobody = 65534;
constexpr const char* kRunId = "0123456789ab";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// A run record whose master runs in a Kubernetes cluster and whose launcher
// is gone: reading it asks the cluster, through a kubeconfig whose
// credential plugin leaves `marker` when it runs.
struct Plant {
  TempDir tools;
  std::string marker = tools.path() + "/plugin-ran";
  std::string kubeconfig;

  Plant() {
    const std::string plugin = tools.write("plugin", "#!/bin/sh\nid > " + marker + "\nexit 1\n");
    REQUIRE(::chmod(plugin.c_str(), 0755) == 0);
    kubeconfig = tools.write("kubeconfig",
                             "apiVersion: v1\nkind: Config\n"
                             "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:9\n"
                             "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                             "current-context: x\n"
                             "users:\n- name: u\n  user:\n    exec:\n"
                             "      apiVersion: client.authentication.k8s.io/v1\n"
                             "      command: " + plugin + "\n      interactiveMode: Never\n");
  }
  // The record, in dir (made), its files owned by uid.
  void Record(const std::string& dir, uid_t uid) const {
    std::filesystem::create_directories(dir);
    const nlohmann::json record = {
        {"id", kRunId}, {"name", "planted"}, {"program", "/bin/true"}, {"backend", "kubernetes"},
        {"settings", {{"master", "cluster"}, {"kubeconfig", kubeconfig}, {"namespace", "default"}}},
        {"engine_env", {{"KUBECONFIG", kubeconfig}}},
        {"created", 1}, {"supervisor_pid", 0}, {"master_pid", 0}};
    for (const auto& [name, text] : {std::pair<std::string, std::string>{"run.json", record.dump()},
                                     {"status.json", R"({"exit_status": 0, "ended": 2})"}}) {
      const std::string path = dir + "/" + name;
      std::ofstream(path) << text;
      REQUIRE(::chown(path.c_str(), uid, uid) == 0);
    }
    REQUIRE(::chown(dir.c_str(), uid, uid) == 0);
  }
  bool PluginRan() const { return std::filesystem::exists(marker); }
};

// Each command that reads the runs root, run against it: none runs the
// plugin, each says once why (naming `named`), none removes the record.
void EveryReaderRefuses(Fiber& fiber, const Plant& plant, const std::string& record_dir,
                        const std::string& named) {
  const std::vector<std::vector<std::string>> commands = {
      {"ps", "-a"}, {"ps", kRunId}, {"top", "--once"}, {"logs", kRunId},
      {"stop", kRunId}, {"rm", kRunId}, {"prune"}};
  for (const auto& args : commands) {
    CAPTURE(args[0]);
    auto [status, out, err] = fiber.Run(args);
    CHECK_FALSE(plant.PluginRan());
    CHECK_MESSAGE(Count(err, "not reading runs another user could have written") == 1, err);
    CHECK_MESSAGE(Contains(err, named), err);
    CHECK_FALSE(Contains(out, "planted"));
    CHECK(std::filesystem::exists(record_dir + "/run.json"));
    // A command about that run finds none; the listings list none.
    if (args.size() == 2 && args[1] == kRunId) CHECK(status != 0);
  }
}

// The user's fiber command with its own runs root, and a plant to put in
// it; prune finds no Docker engine there, so it touches no image.
struct World {
  Plant plant;
  Fiber fiber;
  World() { fiber.env["DOCKER_HOST"] = "unix://" + plant.tools.path() + "/no-engine.sock"; }
  std::string Runs() const { return fiber.state.dir("fiber/runs"); }
};

// Handing files to another user needs root: false (and says so) without.
bool Root() {
  if (::geteuid() == 0) return true;
  fiber::testing::Skipped("handing a file to another user needs root");
  return false;
}

}  // namespace

TEST_CASE("a run directory another user owns, in the user's own runs root, is refused by every reader") {
  if (!Root()) return;
  World w;
  const std::string dir = w.Runs() + "/" + kRunId;
  w.plant.Record(dir, kNobody);
  EveryReaderRefuses(w.fiber, w.plant, dir, dir + " (owned by nobody (uid 65534), not by you)");
}

TEST_CASE("a record another user owns, in a run directory of the user's, is refused") {
  if (!Root()) return;
  World w;
  const std::string dir = w.Runs() + "/" + kRunId;
  w.plant.Record(dir, kNobody);
  REQUIRE(::chown(dir.c_str(), 0, 0) == 0);
  REQUIRE(::chmod(dir.c_str(), 0700) == 0);
  EveryReaderRefuses(w.fiber, w.plant, dir, dir + " (run.json: owned by nobody (uid 65534), not by you)");
}

TEST_CASE("a runs root reached through another user's directory or link is refused whole") {
  if (!Root()) return;
  World w;
  SUBCASE("a state directory another user made first (an XDG_STATE_HOME under /tmp)") {
    const std::string theirs = w.fiber.state.dir("theirs");
    w.plant.Record(theirs + "/fiber/runs/" + kRunId, ::geteuid());  // every file the user's but the top
    REQUIRE(::chown(theirs.c_str(), kNobody, kNobody) == 0);
    w.fiber.env["XDG_STATE_HOME"] = theirs;
    EveryReaderRefuses(w.fiber, w.plant, theirs + "/fiber/runs/" + kRunId,
                       theirs + " is owned by nobody (uid 65534), not by you");
  }
  SUBCASE("a link another user planted where the user's state directory was") {
    const std::string mine = w.fiber.state.dir("mine");
    w.plant.Record(mine + "/fiber/runs/" + kRunId, ::geteuid());
    const std::string link = w.fiber.state.path() + "/state";
    std::filesystem::create_symlink(mine, link);
    REQUIRE(::lchown(link.c_str(), kNobody, kNobody) == 0);
    w.fiber.env["XDG_STATE_HOME"] = link;
    EveryReaderRefuses(w.fiber, w.plant, mine + "/fiber/runs/" + kRunId,
                       link + " is a symbolic link owned by nobody (uid 65534), not by you");
  }
}

TEST_CASE("the user's own runs, in the same root as a refused one, are still listed") {
  if (!Root()) return;
  World w;
  w.plant.Record(w.Runs() + "/" + kRunId, kNobody);
  // A run of the user's own, ended: a record as fiber run writes it.
  auto [status, out, err] = w.fiber.Run({"run", "--name", "mine", "sh", "-c", "true"});
  REQUIRE_MESSAGE(status == 0, err);
  auto [ps_status, listed, ps_err] = w.fiber.Run({"ps", "-a"});
  CHECK(ps_status == 0);
  CHECK_MESSAGE(Contains(listed, "mine"), listed);
  CHECK_FALSE(Contains(listed, "planted"));
  CHECK(Count(ps_err, "not reading runs another user could have written") == 1);
  CHECK_FALSE(w.plant.PluginRan());
}
