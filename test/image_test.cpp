// Packaging a native program as an image (image/package.hpp) and loading it
// into the real container engine of this machine (image/engine_load.hpp).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <utime.h>

#include <cstdlib>
#include <filesystem>

#include "engine/engine_socket.hpp"
#include "image/engine_load.hpp"
#include "image/package.hpp"
#include "subprocess.hpp"
#include "support/docker_cli.hpp"
#include "support/probe_project.hpp"
#include "support/temp_dir.hpp"

using fiber::testing::Docker;
using fiber::testing::ImageGuard;
using Project = fiber::testing::ProbeProject;
using fiber::testing::TempDir;
namespace image = fiber::image;
namespace fs = std::filesystem;

namespace {

void SetTimes(const std::string& path, long seconds) {
  const utimbuf times{seconds, seconds};
  REQUIRE(::utime(path.c_str(), &times) == 0);
}

fiber::engine::Client Engine() {
  std::string socket, err;
  REQUIRE_MESSAGE(fiber::engine::FindSocket("auto", [](const char* n) { return std::getenv(n); }, &socket, &err),
                  err);
  return fiber::engine::Client(socket);
}

bool HasRole(const image::Image& img, const std::string& role, const std::string& name) {
  for (const auto& c : img.contents)
    if (c.role == role && c.path.find(name) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the same program packaged twice gives the same digests, whatever its files' times") {
  Project project;
  image::Image first, second;
  std::string err;
  REQUIRE_MESSAGE(image::Package(project.Inputs(), &first, &err), err);
  SetTimes(project.program, 1000000);
  SetTimes(project.dir.path() + "/data/greeting.txt", 2000000);
  SetTimes(project.dir.path() + "/data", 3000000);
  TempDir other_blobs;
  image::PackageInputs again = project.Inputs();
  again.blob_dir = other_blobs.path();
  REQUIRE_MESSAGE(image::Package(again, &second, &err), err);
  CHECK(first.layer.digest == second.layer.digest);
  CHECK(first.diff_id == second.diff_id);
  CHECK(first.config_blob.digest == second.config_blob.digest);
  CHECK(first.manifest_blob.digest == second.manifest_blob.digest);
  CHECK(first.Reference() == second.Reference());
  CHECK(first.Reference() == "localhost/fiber/image-probe:" + first.Tag());
}

TEST_CASE("SOURCE_DATE_EPOCH's time is in the image, so another time gives another digest") {
  Project project;
  image::Image at_zero, later;
  std::string err;
  REQUIRE_MESSAGE(image::Package(project.Inputs(), &at_zero, &err), err);
  image::PackageInputs in = project.Inputs();
  in.mtime = 1700000000;
  REQUIRE_MESSAGE(image::Package(in, &later, &err), err);
  CHECK(at_zero.layer.digest != later.layer.digest);
  CHECK(later.config.find("\"created\":\"2023-11-14T22:13:20Z\"") != std::string::npos);
}

TEST_CASE("a packaged image holds the program, its dynamic loader, its libraries and the listed files") {
  Project project;
  image::Image img;
  std::string err;
  REQUIRE_MESSAGE(image::Package(project.Inputs(), &img, &err), err);
  CHECK(HasRole(img, "program", "/bin/image_probe"));
  CHECK(HasRole(img, "loader", "ld-linux"));
  CHECK(HasRole(img, "library", "libc.so"));
  CHECK(HasRole(img, "library", "libstdc++"));
  CHECK(HasRole(img, "listed", "/data"));
  CHECK(img.entrypoint == project.program);
  CHECK(img.config.find("\"WorkingDir\":\"" + project.dir.path() + "\"") != std::string::npos);
  CHECK(fs::file_size(img.layer_file) == static_cast<std::uintmax_t>(img.layer.size));
}

TEST_CASE("a library the program loads later is packaged with the libraries it needs") {
  Project project;
  image::PackageInputs in = project.Inputs();
  in.loaded_later = {"libcurl.so.4"};
  image::Image img;
  std::string err;
  REQUIRE_MESSAGE(image::Package(in, &img, &err), err);
  CHECK(HasRole(img, "library", "libcurl.so.4"));
  CHECK(HasRole(img, "library", "libnghttp2"));  // libcurl's own, not the program's
  in.loaded_later = {"libfiber-no-such-library.so.9"};
  CHECK_FALSE(image::Package(in, &img, &err));
  CHECK_MESSAGE(err.find("libfiber-no-such-library.so.9") != std::string::npos, err);
}

TEST_CASE("a packaged program runs in a container of the engine, with its listed files") {
  Project project;
  image::Image img;
  std::string err;
  REQUIRE_MESSAGE(image::Package(project.Inputs(), &img, &err), err);
  ImageGuard guard(img.Reference());
  bool loaded = false;
  REQUIRE_MESSAGE(image::LoadIntoEngine(img, Engine(), &loaded, &err), err);
  CHECK(loaded);
  auto [status, out, stderr_text] =
      Docker({"run", "--rm", "--network", "none", img.Reference(), "data/greeting.txt"});
  CHECK_MESSAGE(status == 0, stderr_text);
  CHECK(out == "image_probe ran hello from a listed file\n");
  auto [inspect_status, id, inspect_err] =
      Docker({"image", "inspect", "--format", "{{.Id}}", img.Reference()});
  CHECK(id == img.config_blob.digest + "\n");

  SUBCASE("and is not sent again when the engine has it") {
    REQUIRE_MESSAGE(image::LoadIntoEngine(img, Engine(), &loaded, &err), err);
    CHECK_FALSE(loaded);
  }
}

TEST_CASE("packaging names a program that is not there") {
  TempDir blobs;
  image::PackageInputs in;
  in.program = "/no/such/program";
  in.blob_dir = blobs.path();
  image::Image img;
  std::string err;
  CHECK_FALSE(image::Package(in, &img, &err));
  CHECK(err == "the program /no/such/program is not found");
}

TEST_CASE("packaging refuses a program that is not an ELF executable") {
  TempDir dir;
  const std::string script = dir.write("run.sh", "#!/bin/sh\necho hi\n");
  ::chmod(script.c_str(), 0755);
  image::PackageInputs in;
  in.program = script;
  in.blob_dir = dir.path();
  image::Image img;
  std::string err;
  CHECK_FALSE(image::Package(in, &img, &err));
  CHECK(err == script + " is not an ELF executable (it is a script)");
}

TEST_CASE("packaging names the shared library the dynamic loader cannot find") {
  // hold_pool finds libfiber through a RUNPATH relative to the build tree
  // (or meson test's LD_LIBRARY_PATH); copied elsewhere, without it, it cannot.
  const char* library_path = std::getenv("LD_LIBRARY_PATH");
  const std::string saved = library_path ? library_path : "";
  ::unsetenv("LD_LIBRARY_PATH");
  TempDir dir;
  const std::string program = dir.path() + "/hold_pool";
  fs::copy_file(built_program("hold_pool"), program);
  image::PackageInputs in;
  in.program = program;
  in.blob_dir = dir.path();
  image::Image img;
  std::string err;
  CHECK_FALSE(image::Package(in, &img, &err));
  CHECK(err.find(program + " needs libfiber.so") == 0);
  CHECK(err.find("which the dynamic loader cannot find") != std::string::npos);
  if (library_path) ::setenv("LD_LIBRARY_PATH", saved.c_str(), 1);
}

TEST_CASE("packaging names a listed file that is not there") {
  Project project;
  image::PackageInputs in = project.Inputs();
  in.files = {"models/missing.bin"};
  image::Image img;
  std::string err;
  CHECK_FALSE(image::Package(in, &img, &err));
  CHECK(err == "the file models/missing.bin listed to go into the image is not found (" +
                   project.dir.path() + "/models/missing.bin)");
}

TEST_CASE("loading into an engine that is not there names its socket") {
  Project project;
  image::Image img;
  std::string err;
  REQUIRE_MESSAGE(image::Package(project.Inputs(), &img, &err), err);
  bool loaded = false;
  CHECK_FALSE(image::LoadIntoEngine(img, fiber::engine::Client(project.dir.path() + "/no.sock"), &loaded,
                                     &err));
  CHECK(err.find("cannot reach the container engine at " + project.dir.path() + "/no.sock: ") == 0);
}
