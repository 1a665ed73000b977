#include "support/test_image.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "backend/container/start_diagnosis.hpp"
#include "engine/tar_writer.hpp"

namespace fiber::testing {

namespace {

namespace fs = std::filesystem;

// The files ldd names for program: "name => /path (0x...)" and the loader's
// "/path (0x...)".
std::vector<std::string> SharedLibraries(const std::string& program, std::string* err) {
  std::vector<std::string> out;
  FILE* ldd = ::popen(("ldd '" + program + "' 2>&1").c_str(), "r");
  if (!ldd) {
    *err = "cannot run ldd";
    return out;
  }
  char line[4096];
  while (std::fgets(line, sizeof line, ldd)) {
    std::string text = line;
    const auto arrow = text.find("=> ");
    const auto start = arrow != std::string::npos ? arrow + 3 : text.find('/');
    if (start == std::string::npos || text[start] != '/') continue;
    out.push_back(text.substr(start, text.find(" (", start) - start));
  }
  ::pclose(ldd);
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

engine::Client TestEngine() {
  engine::Client client;
  std::string err;
  const config::Getenv getenv = [](const char* name) -> const char* { return std::getenv(name); };
  REQUIRE_MESSAGE(engine::Client::Connect("auto", getenv, &client, &err), err);
  return client;
}

bool BuildTestImage(const engine::Client& engine, const TestImage& image, std::string* reference,
                    std::string* err) {
  std::set<std::string> files;  // normalized absolute paths
  for (const std::string& program : image.programs) {
    const std::string exe = fs::canonical(program).string();
    if (!image.without_programs) files.insert(exe);
    const std::string loader = backend::ElfInterpreter(exe);
    for (const std::string& lib : SharedLibraries(exe, err)) {
      const std::string path = fs::path(lib).lexically_normal().string();
      if (image.without_loader && path == loader) continue;
      if (!image.without_library.empty() && fs::path(path).filename() == image.without_library)
        continue;
      files.insert(path);
    }
  }
  engine::TarWriter tar;
  tar.AddDirectory("tmp", 01777);
  std::set<std::string> dirs;
  for (const std::string& file : files) {
    std::vector<std::string> parents;
    for (fs::path p = fs::path(file).parent_path(); p != "/"; p = p.parent_path())
      parents.push_back(p.string().substr(1));
    for (auto it = parents.rbegin(); it != parents.rend(); ++it)
      if (dirs.insert(*it).second) tar.AddDirectory(*it, 0755);
    tar.AddFile(file.substr(1), 0755, ReadFile(file));
  }
  std::string archive;
  if (!tar.Finish(&archive, err)) return false;
  char tag[32];
  std::snprintf(tag, sizeof tag, "%016zx", std::hash<std::string>{}(archive));
  *reference = std::string("fiber-test:") + tag;

  http::Response r;
  if (engine.Call("GET", "/images/" + *reference + "/json", {}, engine::kShortCallMs, &r, err))
    return true;
  http::Request q;
  q.method = "POST";
  q.url = std::string("http://engine/v1.41/images/create?fromSrc=-&repo=fiber-test&tag=") + tag;
  q.unix_socket = engine.socket();
  q.headers.push_back("Content-Type: application/x-tar");
  q.body = std::move(archive);
  q.timeout_ms = engine::kLongCallMs;
  if (!http::Perform(q, &r, err)) return false;
  if (r.status != 200) {
    *err = "importing the test image: " + engine::ErrorMessage(r);
    return false;
  }
  return true;
}

}  // namespace fiber::testing
