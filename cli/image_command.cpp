// fiber image build PROGRAM [--push REGISTRY/NAME[:TAG]]: packages PROGRAM
// as fiber run would for a container backend, and only that. The reference
// goes to stdout, for scripts; what went into the image, to stderr.
// fiber image prune [PROGRAM]: removes those images (image_prune.hpp).
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "commands.hpp"
#include "settings_flags.hpp"
#include "error_line.hpp"
#include "image_build.hpp"
#include "image_prune.hpp"
#include "local_program.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

namespace {

struct ImageOptions {
  SettingsFlags settings;
  std::string program;
  std::string push_to;
  bool quiet = false;
};

int Build(const ImageOptions& o) {
  config::Resolved resolved;
  std::string err;
  if (!o.settings.Resolve(&resolved, &err)) {
    Error(err);
    return kFiberError;
  }
  ImageRequest request;
  int status = 0;
  const char* path = std::getenv("PATH");
  if (!FindProgram(o.program, path ? path : "/usr/bin:/bin", &request.program, &status, &err)) {
    Error(err);
    return kFiberError;
  }
  request.settings = &resolved.settings;
  request.push_to = o.push_to;
  request.progress = !o.quiet && ::isatty(2);
  BuiltImage built;
  if (!BuildImage(request, &built, &err)) {
    Error(err);
    return kFiberError;
  }
  if (!o.quiet) ReportImage(built, stderr);
  std::printf("%s\n", built.reference.c_str());
  return 0;
}

struct PruneOptions {
  SettingsFlags settings;
  std::string program;  // empty: every program's
};

int RunImagePrune(const PruneOptions& o) {
  config::Resolved resolved;
  engine::Client engine;
  PrunedImages pruned;
  std::string err;
  const std::string repository = o.program.empty() ? "" : image::RepositoryFor(o.program);
  if (!o.settings.Resolve(&resolved, &err) || !ConnectImageEngine(resolved.settings, &engine, &err) ||
      !PruneImages(engine, repository, &pruned, &err)) {
    ReportPrunedImages(pruned);
    Error(err);
    return 1;
  }
  ReportPrunedImages(pruned);
  std::printf("Total reclaimed space: %s\n", HumanSize(pruned.bytes).c_str());
  return 0;
}

}  // namespace

void AddImageCommands(CLI::App& app, int* status) {
  CLI::App* image = app.add_subcommand("image", "make container images of a program");
  image->require_subcommand(1);
  auto options = std::make_shared<ImageOptions>();
  CLI::App* build = image->add_subcommand(
      "build", "package PROGRAM, its libraries and the image_files into an image; print its reference");
  build->add_option("PROGRAM", options->program, "the executable to package")->required();
  build->add_option("--push", options->push_to,
                    "push to REGISTRY/NAME[:TAG] instead of loading into the local engine");
  build->add_flag("-q,--quiet", options->quiet, "only the reference, on stdout");
  options->settings.AddTo(*build);
  build->callback([options, status] { *status = Build(*options); });
  auto prune_options = std::make_shared<PruneOptions>();
  CLI::App* prune = image->add_subcommand(
      "prune", "remove the images fiber packaged into the local engine that no run uses");
  prune->add_option("PROGRAM", prune_options->program, "only the images of this program");
  prune_options->settings.AddTo(*prune);
  prune->callback([prune_options, status] { *status = RunImagePrune(*prune_options); });
}

}  // namespace fiber::cli
