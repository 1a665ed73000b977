#include "support/test_image.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "config/settings.hpp"
#include "engine/engine_streams.hpp"
#include "engine/tar_writer.hpp"
#include "image/engine_load.hpp"
#include "image/package.hpp"
#include "image/shared_libraries.hpp"
#include "os/elf_file.hpp"
#include "support/packaged_images.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string TestEngineName() {
  const char* name = std::getenv("FIBER_TEST_ENGINE");
  return name && *name ? name : "docker";
}

engine::Client TestEngine() {
  engine::Client client;
  std::string err;
  const config::Getenv getenv = config::ProcessEnvironment;
  REQUIRE_MESSAGE(engine::Client::Connect(TestEngineName(), getenv, &client, &err), err);
  return client;
}

bool BuildTestImage(const engine::Client& engine, const TestImage& image, std::string* reference,
                    std::string* err) {
  // Whole, it is what the packager makes.
  if (!image.without_programs && !image.without_loader && image.without_library.empty() &&
      image.programs.size() == 1) {
    TempDir blobs;
    image::PackageInputs in;
    in.program = fs::canonical(image.programs.front()).string();
    in.blob_dir = blobs.path();
    image::Image packaged;
    bool loaded = false;
    if (!image::Package(in, &packaged, err) ||
        !image::LoadIntoEngine(packaged, engine, &loaded, err))
      return false;
    *reference = packaged.Reference();
    RemovePackagedImagesAtExit(in.program);
    return true;
  }
  std::set<std::string> files;  // normalized absolute paths
  for (const std::string& program : image.programs) {
    const std::string exe = fs::canonical(program).string();
    if (!image.without_programs) files.insert(exe);
    os::ElfFile elf;
    std::vector<std::string> libraries;
    if (!os::ReadElfFile(exe, &elf, err) ||
        !image::SharedLibraries(exe, elf.interpreter, &libraries, err))
      return false;
    const std::string& loader = elf.interpreter;
    for (const std::string& lib : libraries) {
      const std::string path = fs::path(lib).lexically_normal().string();
      if (image.without_loader && path == loader) continue;
      if (!image.without_library.empty() && fs::path(path).filename() == image.without_library)
        continue;
      files.insert(path);
    }
  }
  std::string archive;
  engine::StringSink sink(&archive);
  engine::TarWriter tar(&sink, 0);
  if (!tar.Directory("tmp", 01777, err)) return false;
  std::set<std::string> dirs{"tmp"};  // once, even when the build is under /tmp
  for (const std::string& file : files) {
    std::vector<std::string> parents;
    for (fs::path p = fs::path(file).parent_path(); p != "/"; p = p.parent_path())
      parents.push_back(p.string().substr(1));
    for (auto it = parents.rbegin(); it != parents.rend(); ++it)
      if (dirs.insert(*it).second && !tar.Directory(*it, 0755, err)) return false;
    if (!tar.FileWith(file.substr(1), 0755, ReadFile(file), err)) return false;
  }
  if (!tar.Finish(err)) return false;
  char tag[32];
  std::snprintf(tag, sizeof tag, "%016zx", std::hash<std::string>{}(archive));
  *reference = std::string("fiber-test:") + tag;

  http::Response r;
  if (engine.Call("GET", "/images/" + *reference + "/json", {}, engine::kShortCallMs, &r, err))
    return true;
  TempDir dir;
  const std::string archive_file = dir.path() + "/image.tar";
  std::ofstream(archive_file, std::ios::binary) << archive;
  // The tag inside repo: Podman ignores the tag parameter.
  if (engine::PostArchive(engine, "/images/create?fromSrc=-&repo=" + http::Escape(*reference), archive_file,
                         nullptr, err))
    return true;
  *err = "importing the test image: " + *err;
  return false;
}

}  // namespace fiber::testing
