// Settings files and the one order of sources: flags > FIBER_* environment >
// project fiber.yaml > user config.yaml > defaults; profiles; where each value
// came from; and one clear error, with file, line and column, for a bad file.
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "config/resolve.hpp"
#include "config/sources_report.hpp"
#include "config/starter_file.hpp"
#include "support/temp_dir.hpp"

using fiber::config::Inputs;
using fiber::config::Resolved;
using fiber::testing::TempDir;

namespace {

// A user's world in a temporary directory: a home with its config under
// XDG_CONFIG_HOME, a project directory to start in, and the environment.
struct World {
  TempDir root;
  std::map<std::string, std::string> env = {{"XDG_CONFIG_HOME", root.path() + "/xdg"}};
  std::string cwd = root.dir("project");
  std::string config_file;
  std::map<std::string, std::string> flags;

  std::string user_file(const std::string& text) { return root.write("xdg/fiber/config.yaml", text); }
  std::string project_file(const std::string& text) { return root.write("project/fiber.yaml", text); }

  bool resolve(Resolved* out, std::string* err) {
    Inputs inputs;
    inputs.getenv = [this](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    };
    inputs.cwd = cwd;
    inputs.config_file = config_file;
    inputs.flags = flags;
    return fiber::config::Resolve(inputs, out, err);
  }
  Resolved resolved() {
    Resolved out;
    std::string err;
    REQUIRE_MESSAGE(resolve(&out, &err), err);
    return out;
  }
  std::string error() {
    Resolved out;
    std::string err;
    CHECK_FALSE(resolve(&out, &err));
    return err;
  }
};

// Every setting shown the same in a and b.
bool same(const fiber::config::Settings& a, const fiber::config::Settings& b) {
  for (const auto& row : fiber::config::Table())
    if (row.kind.show(a) != row.kind.show(b)) return false;
  return true;
}

}  // namespace

TEST_CASE("each source overrides the ones below it: flags, environment, project file, user file, defaults") {
  World w;
  const std::string user = w.user_file(
      "prefetch: 3\n"
      "gpu: 1\n"
      "cpu: 2\n"
      "heartbeat_timeout: 7\n");
  const std::string project = w.project_file(
      "prefetch: 4\n"
      "gpu: 2\n"
      "cpu: 0.5\n");
  w.env["FIBER_PREFETCH"] = "5";
  w.env["FIBER_GPU"] = "3";
  w.flags["prefetch"] = "6";
  const Resolved r = w.resolved();
  CHECK(r.settings.prefetch == 6);
  CHECK(r.sources.at("prefetch") == "--prefetch");
  CHECK(r.settings.gpu == 3);
  CHECK(r.sources.at("gpu") == "FIBER_GPU");
  CHECK(r.settings.cpu_millis == 500);
  CHECK(r.sources.at("cpu") == project + ":3:6");
  CHECK(r.settings.heartbeat_timeout.count() == 7000);
  CHECK(r.sources.at("heartbeat_timeout") == user + ":4:20");
  CHECK(r.settings.memory_mib == 0);
  CHECK(r.sources.at("memory") == "default");
  CHECK(r.files == std::vector<std::string>{user, project});
}

TEST_CASE("the nearest fiber.yaml from the current directory upward is the project file") {
  World w;
  w.root.write("project/fiber.yaml", "prefetch: 3\n");
  const std::string nearer = w.root.write("project/a/fiber.yaml", "prefetch: 4\n");
  w.cwd = w.root.dir("project/a/b/c");
  CHECK(fiber::config::FindProjectFile(w.cwd) == nearer);
  CHECK(w.resolved().settings.prefetch == 4);
  CHECK(w.resolved().sources.at("prefetch") == nearer + ":1:11");
  w.cwd = w.root.dir("project/x");
  CHECK(w.resolved().settings.prefetch == 3);
  w.cwd = w.root.dir("project");
  CHECK(w.resolved().settings.prefetch == 3);
}

TEST_CASE("--config replaces the lookup, and FIBER_CONFIG does when no flag names a file") {
  World w;
  w.project_file("prefetch: 3\n");
  const std::string named = w.root.write("elsewhere/settings.yaml", "prefetch: 4\n");
  const std::string by_variable = w.root.write("elsewhere/other.yaml", "prefetch: 5\n");
  w.config_file = named;
  CHECK(w.resolved().settings.prefetch == 4);
  CHECK(w.resolved().files == std::vector<std::string>{named});
  w.env["FIBER_CONFIG"] = by_variable;
  CHECK(w.resolved().settings.prefetch == 4);
  w.config_file.clear();
  CHECK(w.resolved().settings.prefetch == 5);
  w.config_file = w.root.path() + "/missing.yaml";
  CHECK(w.error() == w.config_file + ": cannot read: No such file or directory");
}

TEST_CASE("the user file is under XDG_CONFIG_HOME, else ~/.config") {
  World w;
  const std::map<std::string, std::string> both = {{"XDG_CONFIG_HOME", "/x"}, {"HOME", "/h"}};
  auto user_file = [](const std::map<std::string, std::string>& env) {
    return fiber::config::UserFile([&](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    });
  };
  CHECK(user_file(both) == "/x/fiber/config.yaml");
  CHECK(user_file({{"XDG_CONFIG_HOME", ""}, {"HOME", "/h"}}) == "/h/.config/fiber/config.yaml");
  CHECK(user_file({{"XDG_CONFIG_HOME", "relative"}, {"HOME", "/h"}}) == "/h/.config/fiber/config.yaml");
  CHECK(user_file({}) == "");

  w.env = {{"HOME", w.root.path() + "/home"}};
  const std::string in_home = w.root.write("home/.config/fiber/config.yaml", "gpu: 1\n");
  CHECK(w.resolved().settings.gpu == 1);
  CHECK(w.resolved().sources.at("gpu") == in_home + ":1:6");
}

TEST_CASE("a profile chosen in a file applies over that file's top level") {
  World w;
  const std::string project = w.project_file(
      "profile: big\n"
      "prefetch: 3\n"
      "cpu: 1\n"
      "profiles:\n"
      "  big:\n"
      "    cpu: 4\n"
      "    memory: 8Gi\n"
      "  small:\n"
      "    cpu: 0.5\n");
  Resolved r = w.resolved();
  CHECK(r.settings.profile == "big");
  CHECK(r.sources.at("profile") == project + ":1:10");
  CHECK(r.settings.prefetch == 3);
  CHECK(r.settings.cpu_millis == 4000);
  CHECK(r.sources.at("cpu") == project + ":6:10");
  CHECK(r.settings.memory_mib == 8192);

  w.env["FIBER_PROFILE"] = "small";
  r = w.resolved();
  CHECK(r.settings.cpu_millis == 500);
  CHECK(r.settings.memory_mib == 0);
  CHECK(r.sources.at("profile") == "FIBER_PROFILE");

  w.flags["profile"] = "big";
  CHECK(w.resolved().settings.cpu_millis == 4000);
}

TEST_CASE("a profile from the user file stays under the project file's top level") {
  World w;
  const std::string user = w.user_file(
      "profiles:\n"
      "  gpu:\n"
      "    prefetch: 8\n"
      "    gpu: 2\n");
  w.project_file(
      "profile: gpu\n"
      "prefetch: 3\n");
  const Resolved r = w.resolved();
  CHECK(r.settings.prefetch == 3);
  CHECK(r.settings.gpu == 2);
  CHECK(r.sources.at("gpu") == user + ":4:10");
}

TEST_CASE("an unknown profile is an error naming the profiles there are") {
  World w;
  w.user_file("profiles:\n  small: {cpu: 1}\n");
  const std::string project = w.project_file("profile: huge\nprofiles:\n  big: {cpu: 4}\n");
  CHECK(w.error() == project + ":1:10: profile='huge' is not a known profile (known: big, small)");
  w.env["FIBER_PROFILE"] = "giant";
  CHECK(w.error() == "FIBER_PROFILE='giant' is not a known profile (known: big, small)");
  w.env["FIBER_PROFILE"] = "";
  CHECK(w.error() == "FIBER_PROFILE is empty");

  World bare;
  bare.flags["profile"] = "big";
  CHECK(bare.error() == "--profile='big' is not a known profile (no settings file defines one)");
}

TEST_CASE("a misspelt choice gets the same suggestion from a file, a variable and a flag") {
  const std::string says =
      "='dokcer' is not a known backend (known: local, docker, podman, container, kubernetes, slurm); "
      "did you mean 'docker'?";
  World file;
  const std::string project = file.project_file("backend: dokcer\n");
  CHECK(file.error() == project + ":1:10: backend" + says);
  World variable;
  variable.env["FIBER_BACKEND"] = "dokcer";
  CHECK(variable.error() == "FIBER_BACKEND" + says);
  World flag;
  flag.flags["backend"] = "dokcer";
  CHECK(flag.error() == "--backend" + says);
  World far;
  far.flags["backend"] = "mainframe";
  CHECK(far.error() ==
        "--backend='mainframe' is not a known backend (known: local, docker, podman, container, kubernetes, slurm)");
}

TEST_CASE("a bad settings file is one error naming its file, line and column") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"prefetch: 2\nheartbeat_timout: 3\n",
       ":2:1: unknown key 'heartbeat_timout' (did you mean 'heartbeat_timeout'?)"},
      {"profiles:\n  dev:\n    prefech: 3\n", ":3:5: unknown key 'prefech' (did you mean 'prefetch'?)"},
      {"profile: dev\nporfiles: {}\n", ":2:1: unknown key 'porfiles' (did you mean 'profiles'?)"},
      {"colour: blue\n", ":1:1: unknown key 'colour'"},
      {"FIBER_PREFETCH: 4\n", ":1:1: unknown key 'FIBER_PREFETCH' (did you mean 'prefetch'?)"},
      {"prefetch:\n  a: 1\n", ":2:3: prefetch takes a whole number, not a map"},
      {"backend: [local]\n", ":1:10: backend takes a backend name, not a list"},
      {"listen_port: 70000\n", ":1:14: listen_port='70000' is not a whole number from 0 to 65535"},
      {"backend: lsf\n", ":1:10: backend='lsf' is not a known backend (known: local, docker, podman, container, kubernetes, slurm)"},
      {"backend: dokcer\n", ":1:10: backend='dokcer' is not a known backend (known: local, docker, podman, "
                             "container, kubernetes, slurm); did you mean 'docker'?"},
      {"engine: podmn\n", ":1:9: engine='podmn' is not a container engine (auto, docker, podman); did you mean 'podman'?"},
      {"memory: 2PB\n",
       ":1:9: memory='2PB' is not a size such as 512Mi, 2Gi, 2GB or 256m (a bare number is MiB)"},
      {"log: loud\n", ":1:6: log='loud' is not a log level (debug, info or warning)"},
      {"listen_host:\nprefetch: 2\n", ":1:1: listen_host is empty"},
      {"prefetch: [1, 2\n", ":2:1: not valid YAML: end of sequence flow not found"},
      {"prefetch: 2\nprefetch: 3\n", ":2:1: 'prefetch' is given twice (first on line 1)"},
      {"- prefetch: 2\n", ":1:1: a settings file holds a map of settings (key: value), not a list"},
      {"image_files: [data, {a: 1}]\n", ":1:21: image_files lists single values, not a map"},
      {"profiles: [dev]\n", ":1:11: profiles takes a map of profile names to settings, not a list"},
      {"profiles:\n  dev: 3\n", ":2:8: profile 'dev' takes a map of settings, not a single value"},
      {"profiles:\n  dev:\n    profile: x\n", ":3:5: a profile cannot choose a profile"},
      {"profiles:\n  dev:\n    gpu: -1\n", ":3:10: gpu='-1' is not a whole number from 0 to 1024"},
      {"prefetch: 2\n---\nprefetch: 3\n",
       ":3:1: a settings file holds one YAML document; a second starts here"},
  };
  for (const auto& [text, says] : cases) {
    World w;
    const std::string project = w.project_file(text);
    CHECK(w.error() == project + says);
  }
  // The user file is checked too, even where the project file overrides it.
  World w;
  const std::string user = w.user_file("prefetch: none\n");
  w.project_file("prefetch: 3\n");
  CHECK(w.error() == user + ":1:11: prefetch='none' is not a whole number from 1 to 256");
}

TEST_CASE("a list setting takes a YAML list in a file, as the variable takes it joined with ':'") {
  World w;
  w.project_file("image_files:\n  - data\n  - models/big.bin\n");
  CHECK(w.resolved().settings.image_files == "data:models/big.bin");
  w.env["FIBER_IMAGE_FILES"] = "other:more";
  CHECK(w.resolved().settings.image_files == "other:more");
}

TEST_CASE("a rule between settings names where each value came from") {
  World w;
  const std::string project = w.project_file("heartbeat_interval: 2\n");
  w.env["FIBER_HEARTBEAT_TIMEOUT"] = "3";
  CHECK(w.error() == "heartbeat_timeout (3 s, from FIBER_HEARTBEAT_TIMEOUT) must be more than "
                     "twice heartbeat_interval (2 s, from " + project + ":1:21)");
}

TEST_CASE("the sources report shows each setting's value and where it came from") {
  World w;
  const std::string project = w.project_file("memory: 2Gi\n");
  w.flags["prefetch"] = "6";
  std::istringstream report(fiber::config::SourcesReport(w.resolved()));
  std::map<std::string, std::string> lines;  // by key
  for (std::string line; std::getline(report, line);) lines[line.substr(0, line.find(' '))] = line;
  CHECK(lines.size() == fiber::config::Table().size());
  auto words = [](const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string word; in >> word;) out.push_back(word);
    return out;
  };
  CHECK(words(lines["prefetch"]) == std::vector<std::string>{"prefetch", "6", "--prefetch"});
  CHECK(words(lines["memory"]) == std::vector<std::string>{"memory", "2Gi", project + ":1:9"});
  CHECK(words(lines["backend"]) == std::vector<std::string>{"backend", "local", "default"});
}

TEST_CASE("the starter file reads back as the defaults, its lines commented out or not") {
  World w;
  const std::string starter = fiber::config::StarterFile();
  w.project_file(starter);
  Resolved r = w.resolved();
  CHECK(same(r.settings, fiber::config::Settings{}));
  for (const auto& [key, source] : r.sources) CHECK_MESSAGE(source == "default", key);

  // Uncommenting every line of YAML ("#key: value", "#  big:"), not the
  // prose ("# Each key"), changes nothing.
  std::istringstream in(starter);
  std::string uncommented;
  for (std::string line; std::getline(in, line);) {
    const bool prose = line.rfind("# ", 0) == 0 && line.rfind("#  ", 0) != 0;
    uncommented += (line.rfind('#', 0) == 0 && !prose ? line.substr(1) : line) + "\n";
  }
  const std::string project = w.project_file(uncommented);
  r = w.resolved();
  CHECK(same(r.settings, fiber::config::Settings{}));
  // Settings with no default (profile, image, ...) are shown by example only.
  for (const auto& row : fiber::config::Table())
    if (!row.kind.show(fiber::config::Settings{}).empty())
      CHECK_MESSAGE(r.sources.at(row.key).rfind(project + ":", 0) == 0, row.key);
  w.flags["profile"] = "big";
  CHECK(w.resolved().settings.cpu_millis == 4000);
}
