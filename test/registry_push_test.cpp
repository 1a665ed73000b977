// Pushing packaged images (image/registry_push.hpp) to a real registry
// (Debian's docker-registry on loopback), with credentials read where users
// keep them (image/registry_credentials.hpp).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <vector>

#include "config/settings.hpp"
#include "encoding/base64.hpp"
#include "http/client.hpp"
#include "image/media_types.hpp"
#include "image/registry_push.hpp"
#include "support/docker_cli.hpp"
#include "support/probe_project.hpp"
#include "support/test_registry.hpp"

using fiber::testing::Docker;
using fiber::testing::FreePort;
using fiber::testing::ImageGuard;
using fiber::testing::ProbeProject;
using fiber::testing::TempDir;
using fiber::testing::TestRegistry;
namespace image = fiber::image;

namespace {

image::Image Packaged(const ProbeProject& project) {
  image::Image img;
  std::string err;
  REQUIRE_MESSAGE(image::Package(project.Inputs(), &img, &err), err);
  return img;
}

image::RegistryReference At(const std::string& text) {
  image::RegistryReference ref;
  std::string err;
  REQUIRE_MESSAGE(image::ParseRegistryReference(text, &ref, &err), err);
  return ref;
}

// A getenv that sees only vars.
fiber::config::Getenv Only(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    const auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

std::string DockerConfigFor(const std::string& registry, const std::string& user,
                            const std::string& password) {
  return R"({"auths": {")" + registry + R"(": {"auth": ")" +
         fiber::Base64Encode(user + ":" + password) + R"("}}})";
}

// A registry of the test's, and image_probe packaged to push to it.
struct Pushing {
  TestRegistry registry;
  ProbeProject project;
  image::Image img;
  explicit Pushing(const std::string& user = "", const std::string& password = "")
      : registry(user, password) {
    REQUIRE(registry.ready());
    img = Packaged(project);
  }
  /// Pushes img to the registry as NAME[:TAG].
  bool Push(const std::string& name, const image::Credentials& credentials,
            image::PushReport* report, std::string* err) {
    return image::Push(img, At(registry.address() + "/" + name), credentials, report, err);
  }
};

// token_registry.py (with MODE if given), ended however the test case ends.
struct TokenRegistry {
  Child child;
  std::string port;       // the registry's
  std::string elsewhere;  // the other host's URL, with a MODE
  explicit TokenRegistry(const std::string& mode = "") {
    std::vector<std::string> argv = {TOKEN_REGISTRY, "fiber", "tok-pass"};
    if (!mode.empty()) argv.push_back(mode);
    child = spawn(argv, {});
    const std::string line = read_line(child.stdout_fd, 30);  // "ready PORT [ELSEWHERE]"
    REQUIRE(line.rfind("ready ", 0) == 0);
    const auto space = line.find(' ', 6);
    port = line.substr(6, space - 6);
    if (space != std::string::npos) elsewhere = line.substr(space + 1);
  }
  ~TokenRegistry() { Stop(); }
  TokenRegistry(const TokenRegistry&) = delete;
  TokenRegistry& operator=(const TokenRegistry&) = delete;
  /// Ends it; what it printed after its first line.
  std::string Stop() {
    if (child.pid <= 0) return "";
    ::kill(child.pid, SIGKILL);
    std::string printed = read_all(child.stdout_fd, 30);
    wait_exit(child, 10);
    child.pid = -1;
    return printed;
  }
};

// What the other host of token_registry.py MODE was sent: one
// Authorization header ("-": none) a request. token_service: what the
// user named as registry_token_service, "ELSEWHERE" for that other host.
std::vector<std::string> PushedWithElsewhere(const std::string& mode, bool* pushed, std::string* err,
                                             std::string token_service = "") {
  TokenRegistry server(mode);
  if (token_service == "ELSEWHERE") token_service = server.elsewhere;
  ProbeProject project;
  image::PushReport report;
  image::Credentials credentials{"fiber", "tok-pass", "test", token_service};
  *pushed = image::Push(Packaged(project), At("127.0.0.1:" + server.port + "/probe:v1"), credentials,
                        &report, err);
  const std::string printed = server.Stop();
  std::vector<std::string> sent;
  for (std::size_t at = 0, end; (end = printed.find('\n', at)) != std::string::npos; at = end + 1)
    if (printed.compare(at, 10, "elsewhere ") == 0) sent.push_back(printed.substr(at + 10, end - at - 10));
  return sent;
}

}  // namespace

TEST_CASE("an image pushed again uploads no blob the registry has") {
  Pushing p;
  image::PushReport first, second;
  std::string err;
  REQUIRE_MESSAGE(p.Push("fiber-test/probe:v1", {}, &first, &err), err);
  CHECK(first.reference == p.registry.address() + "/fiber-test/probe:v1@" + p.img.manifest_blob.digest);
  REQUIRE(first.blobs.size() == 2);
  CHECK(first.blobs[0].uploaded);
  CHECK(first.blobs[1].uploaded);

  REQUIRE_MESSAGE(p.Push("fiber-test/probe:v1", {}, &second, &err), err);
  CHECK_FALSE(second.blobs[0].uploaded);
  CHECK_FALSE(second.blobs[1].uploaded);
  CHECK(second.reference == first.reference);

  // What the registry serves is the manifest, byte for byte.
  fiber::http::Request get;
  get.url = "http://" + p.registry.address() + "/v2/fiber-test/probe/manifests/v1";
  get.headers = {std::string("Accept: ") + image::kManifestMediaType};
  fiber::http::Response response;
  REQUIRE_MESSAGE(fiber::http::Perform(get, &response, &err), err);
  CHECK(response.body == p.img.manifest);
}

TEST_CASE("an image pushed with no tag is tagged with its ID") {
  Pushing p;
  image::PushReport report;
  std::string err;
  REQUIRE_MESSAGE(p.Push("probe", {}, &report, &err), err);
  CHECK(report.reference ==
        p.registry.address() + "/probe:" + p.img.Tag() + "@" + p.img.manifest_blob.digest);
}

TEST_CASE("a pushed image pulls back into the engine and runs from its reference") {
  Pushing p;
  image::PushReport report;
  std::string err;
  const std::string tagged = p.registry.address() + "/fiber-test/pulled:v1";
  REQUIRE_MESSAGE(p.Push("fiber-test/pulled:v1", {}, &report, &err), err);
  ImageGuard guard(tagged);
  auto [pull_status, pull_out, pull_err] = Docker({"pull", tagged});
  REQUIRE_MESSAGE(pull_status == 0, pull_err);
  auto [status, out, run_err] = Docker({"run", "--rm", "--network", "none", tagged, "data/greeting.txt"});
  CHECK_MESSAGE(status == 0, run_err);
  CHECK(out == "image_probe ran hello from a listed file\n");
}

TEST_CASE("a registry asking for Basic credentials gets them from Docker's config.json") {
  Pushing p("fiber", "s3cret-pass");
  TempDir home;
  home.write(".docker/config.json", DockerConfigFor(p.registry.address(), "fiber", "s3cret-pass"));
  image::Credentials credentials;
  std::string err;
  REQUIRE_MESSAGE(image::FindCredentials(p.registry.address(), Only({{"HOME", home.path()}}),
                                         &credentials, &err), err);
  CHECK(credentials.username == "fiber");
  CHECK(credentials.source == home.path() + "/.docker/config.json");
  image::PushReport report;
  REQUIRE_MESSAGE(p.Push("probe:v1", credentials, &report, &err), err);
  CHECK(report.blobs[0].uploaded);
}

TEST_CASE("a registry asking for a Bearer token gets one from its realm with the credentials") {
  TokenRegistry server;
  const std::string address = "127.0.0.1:" + server.port;
  ProbeProject project;
  const image::Image img = Packaged(project);
  image::PushReport report;
  std::string err;
  const bool pushed = image::Push(img, At(address + "/probe:v1"), {"fiber", "tok-pass", "test", ""}, &report, &err);
  const bool refused = image::Push(img, At(address + "/probe:v1"), {"fiber", "bad-pass", "test", ""}, &report, &err);
  CHECK_MESSAGE(pushed, err);
  CHECK_FALSE(refused);
  CHECK(err == address + " refused the credentials of fiber (from test)");
}

TEST_CASE("a registry that redirects an upload to another host gets no credentials sent there") {
  bool pushed = false;
  std::string err;
  const auto sent = PushedWithElsewhere("upload-elsewhere", &pushed, &err);
  CHECK_MESSAGE(pushed, err);  // the other host took the blobs without them
  CHECK(sent == std::vector<std::string>{"-", "-"});
}

TEST_CASE("a token realm on another host is asked without the credentials") {
  bool pushed = false;
  std::string err;
  const auto sent = PushedWithElsewhere("realm-elsewhere", &pushed, &err);
  CHECK_MESSAGE(pushed, err);  // its token came without them
  REQUIRE_FALSE(sent.empty());
  for (const auto& authorization : sent) CHECK(authorization == "-");
}

TEST_CASE("a token service the user names as registry_token_service is sent the credentials") {
  bool pushed = false;
  std::string err;
  const auto sent = PushedWithElsewhere("realm-elsewhere", &pushed, &err, "ELSEWHERE");
  CHECK_MESSAGE(pushed, err);
  REQUIRE_FALSE(sent.empty());
  for (const auto& authorization : sent) CHECK(authorization.rfind("Basic ", 0) == 0);
}

TEST_CASE("a named token service gets credentials only under its URL, and only over TLS or loopback") {
  CHECK(image::UrlUnder("https://auth.docker.io/token?service=x", "https://auth.docker.io"));
  CHECK(image::UrlUnder("https://auth.docker.io", "https://auth.docker.io"));
  CHECK_FALSE(image::UrlUnder("https://auth.docker.io.attacker.example/token", "https://auth.docker.io"));
  CHECK_FALSE(image::UrlUnder("https://auth.docker.io:8443/token", "https://auth.docker.io"));
  CHECK_FALSE(image::UrlUnder("https://auth.docker.io/token", ""));
  CHECK(image::SecureUrl("https://auth.docker.io"));
  CHECK(image::SecureUrl("http://127.0.0.2:5000/token"));
  CHECK(image::SecureUrl("http://[::1]:5000"));
  CHECK_FALSE(image::SecureUrl("http://auth.example/token"));
  CHECK_FALSE(image::SecureUrl("http://127.example.com/token"));
  CHECK_FALSE(image::SecureUrl("ftp://auth.example"));
}

TEST_CASE("credentials go only to the registry itself: its scheme, host and port") {
  const image::RegistryReference remote = At("registry.example/team/train");
  CHECK(remote.Owns("https://registry.example/v2/team/train/blobs/uploads/1"));
  CHECK(remote.Owns("https://registry.example"));
  CHECK_FALSE(remote.Owns("http://registry.example/token"));  // plain HTTP
  CHECK_FALSE(remote.Owns("https://auth.example/token"));
  CHECK_FALSE(remote.Owns("https://registry.example.attacker.example/token"));
  CHECK_FALSE(remote.Owns("https://registry.example:8443/token"));
  const image::RegistryReference local = At("127.0.0.1:5000/train");
  CHECK(local.Owns("http://127.0.0.1:5000/upload/1"));
  CHECK_FALSE(local.Owns("http://127.0.0.1:5001/upload/1"));
  CHECK_FALSE(local.Owns("http://127.0.0.2:5000/upload/1"));
}

TEST_CASE("only loopback registries are spoken to in plain HTTP; 127.example.com is not loopback") {
  CHECK(At("127.example.com/train").BaseUrl() == "https://127.example.com");
  CHECK(At("127.example.com:5000/train").BaseUrl() == "https://127.example.com:5000");
  CHECK(At("127.0.0.1:5000/train").BaseUrl() == "http://127.0.0.1:5000");
  CHECK(At("127.1.2.3:5000/train").BaseUrl() == "http://127.1.2.3:5000");
  CHECK(At("[::1]:5000/train").BaseUrl() == "http://[::1]:5000");
  CHECK(At("localhost:5000/train").BaseUrl() == "http://localhost:5000");
  CHECK(At("localhost.example.com/train").BaseUrl() == "https://localhost.example.com");
}

TEST_CASE("credentials are read from Podman's auth file and from a credential helper") {
  TempDir dir;
  SUBCASE("REGISTRY_AUTH_FILE") {
    const std::string file = dir.write("auth.json", DockerConfigFor("127.0.0.1:5999", "pod", "man"));
    image::Credentials credentials;
    std::string err;
    REQUIRE_MESSAGE(image::FindCredentials("127.0.0.1:5999", Only({{"REGISTRY_AUTH_FILE", file}}),
                                           &credentials, &err), err);
    CHECK(credentials.username == "pod");
    CHECK(credentials.secret == "man");
    CHECK(credentials.source == file);
  }
  SUBCASE("a credHelpers entry of $DOCKER_CONFIG/config.json") {
    const std::string helper = dir.write(
        "bin/docker-credential-fibertest",
        "#!/bin/sh\nread server\n[ \"$1\" = get ] && [ \"$server\" = 127.0.0.1:5999 ] || exit 1\n"
        "echo '{\"ServerURL\":\"127.0.0.1:5999\",\"Username\":\"helped\",\"Secret\":\"by-helper\"}'\n");
    ::chmod(helper.c_str(), 0755);
    dir.write("docker/config.json", R"({"credHelpers": {"127.0.0.1:5999": "fibertest"}})");
    const std::string path = std::getenv("PATH");
    ::setenv("PATH", (dir.path() + "/bin:" + path).c_str(), 1);
    image::Credentials credentials;
    std::string err;
    const bool found = image::FindCredentials(
        "127.0.0.1:5999", Only({{"DOCKER_CONFIG", dir.path() + "/docker"}}), &credentials, &err);
    ::setenv("PATH", path.c_str(), 1);
    REQUIRE_MESSAGE(found, err);
    CHECK(credentials.username == "helped");
    CHECK(credentials.secret == "by-helper");
  }
}

TEST_CASE("a registry refusing the credentials says whose, never the password") {
  Pushing p("fiber", "right-pass");
  const image::Credentials wrong{"fiber", "wrong-pass-123", "/home/me/.docker/config.json", ""};
  image::PushReport report;
  std::string err;
  CHECK_FALSE(p.Push("probe:v1", wrong, &report, &err));
  CHECK(err == p.registry.address() + " refused the credentials of fiber (from /home/me/.docker/config.json)");
  CHECK(err.find("wrong-pass-123") == std::string::npos);

  CHECK_FALSE(p.Push("probe:v1", {}, &report, &err));
  CHECK(err == p.registry.address() + " asks for credentials and none are kept for it (docker login " +
                   p.registry.address() + ", or podman login)");
}

TEST_CASE("pushing to a registry nobody answers at names it") {
  ProbeProject project;
  const std::string address = "127.0.0.1:" + std::to_string(FreePort());
  image::PushReport report;
  std::string err;
  CHECK_FALSE(image::Push(Packaged(project), At(address + "/probe"), {}, &report, &err));
  CHECK(err.find("cannot reach the registry " + address + ": ") == 0);
}

TEST_CASE("a push reference names its registry; loopback ones are plain HTTP") {
  image::RegistryReference ref;
  std::string err;
  CHECK_FALSE(image::ParseRegistryReference("team/train", &ref, &err));
  CHECK(err == "'team/train' names no registry (a reference is REGISTRY/NAME[:TAG], e.g. "
               "127.0.0.1:5000/team/train:v1)");
  CHECK_FALSE(image::ParseRegistryReference("localhost:5000/Team/train", &ref, &err));
  REQUIRE(image::ParseRegistryReference("127.0.0.1:5000/team/train:v1", &ref, &err));
  CHECK(ref.registry == "127.0.0.1:5000");
  CHECK(ref.repository == "team/train");
  CHECK(ref.tag == "v1");
  CHECK(ref.BaseUrl() == "http://127.0.0.1:5000");
  REQUIRE(image::ParseRegistryReference("registry.example/train", &ref, &err));
  CHECK(ref.tag.empty());
  CHECK(ref.BaseUrl() == "https://registry.example");
}
