// The libraries a packaged image holds (image/package.hpp): the loader in
// the image finds every one of them, with no ld.so.cache and no rpath in
// the program, and they go in without their debug sections.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "image/package.hpp"
#include "subprocess.hpp"
#include "support/temp_dir.hpp"

namespace image = fiber::image;
namespace fs = std::filesystem;
using fiber::testing::TempDir;

namespace {

// hold_pool, which loads libfiber from the build tree, packaged.
image::Image PackagedHoldPool(const TempDir& blobs) {
  image::PackageInputs in;
  in.program = built_program("hold_pool");
  in.blob_dir = blobs.path();
  image::Image img;
  std::string err;
  REQUIRE_MESSAGE(image::Package(in, &img, &err), err);
  return img;
}

std::set<std::string> LibraryPathOf(const image::Image& img) {
  const auto config = nlohmann::json::parse(img.config);
  std::set<std::string> dirs;
  for (const auto& entry : config["config"]["Env"]) {
    const std::string e = entry.get<std::string>();
    if (e.rfind("LD_LIBRARY_PATH=", 0) != 0) continue;
    std::istringstream list(e.substr(e.find('=') + 1));
    for (std::string dir; std::getline(list, dir, ':');) dirs.insert(dir);
  }
  return dirs;
}

}  // namespace

TEST_CASE("a packaged image's LD_LIBRARY_PATH names the directory of every library it holds") {
  TempDir blobs;
  const image::Image img = PackagedHoldPool(blobs);
  const std::set<std::string> dirs = LibraryPathOf(img);
  int libraries = 0;
  bool libfiber = false;
  for (const auto& c : img.contents) {
    if (c.role != "library") continue;
    ++libraries;
    libfiber |= c.path.find("libfiber.so") != std::string::npos;
    CHECK_MESSAGE(dirs.count(fs::path(c.path).parent_path().string()), c.path);
  }
  CHECK(libraries > 2);
  CHECK(libfiber);
}

TEST_CASE("a packaged image's libraries go in without their debug sections") {
  TempDir blobs;
  const image::Image img = PackagedHoldPool(blobs);
  bool seen = false;
  for (const auto& c : img.contents) {
    if (c.role != "library" || c.path.find("libfiber.so") == std::string::npos) continue;
    seen = true;
    // As strip --strip-debug makes it, and smaller than the build tree's
    // libfiber, which has debug information (line tables at least, -g1).
    const std::string file = fs::canonical(c.path).string();
    TempDir scratch;
    const std::string stripped = scratch.path() + "/libfiber.so";
    Child strip = spawn({on_path("strip"), "--strip-debug", "-o", stripped, file}, {});
    const std::string said = read_all(strip.stderr_fd, 60);
    ::close(strip.stdout_fd);
    ::close(strip.stderr_fd);
    REQUIRE_MESSAGE(wait_exit(strip, 60) == 0, said);
    const auto on_disk = static_cast<std::int64_t>(fs::file_size(file));
    CHECK_MESSAGE(c.bytes == static_cast<std::int64_t>(fs::file_size(stripped)), file << ": " << c.bytes << " bytes");
    CHECK_MESSAGE(c.bytes < on_disk, file << ": " << c.bytes << " of " << on_disk << " bytes");
  }
  CHECK(seen);
  // The scratch copies are gone with the packaging.
  for (const auto& entry : fs::directory_iterator(blobs.path()))
    CHECK_MESSAGE(entry.path().filename().string().rfind(".strip-", 0) != 0, entry.path());
}
