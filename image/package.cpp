#include "image/package.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "image/byte_sinks.hpp"
#include "image/layer_contents.hpp"
#include "image/media_types.hpp"
#include "image/shared_libraries.hpp"
#include "image/stripped_copies.hpp"
#include "os/elf_file.hpp"

namespace fiber::image {

namespace {

namespace fs = std::filesystem;

std::string Absolute(const std::string& path, const std::string& base) {
  const fs::path p(path);
  return (p.is_absolute() ? p : fs::path(base) / p).lexically_normal().string();
}

std::string Rfc3339(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

bool WriteLayer(const LayerContents& contents, const PackageInputs& in, Image* out,
                std::string* err) {
  const std::string dir = in.blob_dir + "/sha256";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *err = "cannot make " + dir + ": " + ec.message();
    return false;
  }
  FileSink file;
  if (!file.OpenNew(dir + "/.layer-", err)) return false;
  const std::string temp = file.path();
  DigestingSink blob(&file);
  GzipSink gzip(&blob);
  DigestingSink tar_bytes(&gzip);
  engine::TarWriter tar(&tar_bytes, in.mtime);
  if (!contents.WriteTo(&tar, err) || !tar.Finish(err) || !gzip.Finish(err) || !file.Close(err)) {
    ::unlink(temp.c_str());
    return false;
  }
  out->diff_id = tar_bytes.Digest();
  out->layer = {kLayerMediaType, blob.Digest(), blob.size()};
  out->layer_file = dir + "/" + std::string(HexOf(out->layer.digest));
  if (::rename(temp.c_str(), out->layer_file.c_str()) != 0) {
    *err = "cannot write " + out->layer_file + ": " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

// LD_LIBRARY_PATH naming the directory of every library packaged, in the
// loader's order: the image holds no ld.so.cache, and a program linked
// without an rpath found some of them here only through this machine's
// LD_LIBRARY_PATH or cache (libfiber under a prefix's multiarch libdir),
// which the image must give its loader as well.
std::string LibraryPathOf(const Image& image) {
  std::vector<std::string> dirs;
  for (const Content& c : image.contents) {
    if (c.role != "library") continue;
    const std::string dir = fs::path(c.path).parent_path().string();
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  std::string joined;
  for (const std::string& dir : dirs) joined += (joined.empty() ? "" : ":") + dir;
  return joined;
}

void Describe(const PackageInputs& in, bool relative_files, Image* out) {
  using nlohmann::json;
  const std::string created = Rfc3339(in.mtime);
  json env = json::array({"PATH=/usr/local/bin:/usr/bin:/bin"});
  if (const std::string dirs = LibraryPathOf(*out); !dirs.empty()) env.push_back("LD_LIBRARY_PATH=" + dirs);
  json config = {{"Entrypoint", {out->entrypoint}}, {"Env", env}};
  if (relative_files) config["WorkingDir"] = fs::path(in.base_dir).lexically_normal().string();
  const json image = {
      {"architecture", out->architecture},
      {"os", "linux"},
      {"created", created},
      {"config", config},
      {"rootfs", {{"type", "layers"}, {"diff_ids", {out->diff_id}}}},
      {"history", {{{"created", created}, {"created_by", "fiber image build"}}}}};
  out->config = image.dump();
  out->config_blob = {kConfigMediaType, DigestOf(out->config),
                      static_cast<std::int64_t>(out->config.size())};
  const auto blob = [](const Blob& b) {
    return json{{"mediaType", b.media_type}, {"digest", b.digest}, {"size", b.size}};
  };
  const json manifest = {{"schemaVersion", 2},
                         {"mediaType", kManifestMediaType},
                         {"config", blob(out->config_blob)},
                         {"layers", {blob(out->layer)}}};
  out->manifest = manifest.dump();
  out->manifest_blob = {kManifestMediaType, DigestOf(out->manifest),
                        static_cast<std::int64_t>(out->manifest.size())};
}

}  // namespace

std::string RepositoryFor(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  std::string name;
  for (char c : p.filename().string()) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool plain = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (plain) name += l;
    else if (!name.empty() && name.back() != '-') name += '-';
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return kLocalRepositoryPrefix + (name.empty() ? std::string("program") : name);
}

std::string Image::Tag() const { return std::string(HexOf(config_blob.digest).substr(0, 12)); }

std::string Image::Reference() const { return repository + ":" + Tag(); }

bool Package(const PackageInputs& in, Image* out, std::string* err) {
  *out = Image{};
  const std::string program = Absolute(in.program, in.base_dir);
  if (::access(program.c_str(), F_OK) != 0) {
    *err = "the program " + in.program + " is not found";
    return false;
  }
  struct stat st;
  if (::stat(program.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(program.c_str(), X_OK) != 0) {
    *err = "the program " + in.program + " is not an executable file";
    return false;
  }
  os::ElfFile elf;
  if (!os::ReadElfFile(program, &elf, err)) return false;
  std::vector<std::string> libraries;
  if (!elf.interpreter.empty() && !SharedLibraries(program, elf.interpreter, &libraries, err))
    return false;
  // A static program loads nothing later by the loader's search.
  for (const std::string& soname : elf.interpreter.empty() ? std::vector<std::string>() : in.loaded_later) {
    std::string path;
    std::vector<std::string> more;
    if (!LibraryPath(soname, &path, err) || !SharedLibraries(path, elf.interpreter, &more, err))
      return false;
    more.push_back(path);
    for (const std::string& lib : more)
      if (std::find(libraries.begin(), libraries.end(), lib) == libraries.end()) libraries.push_back(lib);
  }

  LayerContents contents;
  std::int64_t bytes = 0;
  if (!contents.Add(program, &bytes, err)) return false;
  out->contents.push_back({program, "program", bytes});
  // Libraries go in without their debug sections, where strip can make
  // such copies; the copies stay until the layer is written.
  StrippedCopies stripped(in.blob_dir);
  for (const auto& lib : libraries) {
    if (!contents.Add(lib, &bytes, err)) return false;
    if (lib != elf.interpreter) {
      std::error_code ec;
      const std::string real = fs::canonical(lib, ec).string();
      const std::string copy = ec ? "" : stripped.Of(real);
      if (!copy.empty() && !contents.ReplaceFile(real, copy, &bytes, err)) return false;
    }
    out->contents.push_back({lib, lib == elf.interpreter ? "loader" : "library", bytes});
  }
  bool relative_files = false;
  for (const auto& file : in.files) {
    relative_files |= !fs::path(file).is_absolute();
    const std::string path = Absolute(file, in.base_dir);
    if (::access(path.c_str(), F_OK) != 0) {
      *err = "the file " + file + " listed to go into the image is not found (" + path + ")";
      return false;
    }
    if (!contents.Add(path, &bytes, err)) return false;
    out->contents.push_back({path, "listed", bytes});
  }
  contents.AddDirectory("/tmp", 01777);  // programs expect somewhere to write

  out->repository = RepositoryFor(program);
  out->architecture = elf.architecture;
  out->entrypoint = program;
  if (!WriteLayer(contents, in, out, err)) return false;
  Describe(in, relative_files, out);
  return true;
}

}  // namespace fiber::image
