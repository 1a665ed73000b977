// fiber init: a commented starter fiber.yaml in the current directory.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "commands.hpp"
#include "error_line.hpp"
#include "config/starter_file.hpp"
#include "os/descriptor.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

namespace {

int Init() {
  os::Descriptor fd(::open(config::kProjectFileName, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd) {
    Error(std::string("cannot write ") + config::kProjectFileName + ": " +
          (errno == EEXIST ? "it exists already" : std::strerror(errno)));
    return kFiberError;
  }
  const std::string text = config::StarterFile();
  const bool ok = os::WriteAll(fd.get(), text) && fd.Close();
  if (!ok) {
    Error(std::string("cannot write ") + config::kProjectFileName);
    return kFiberError;
  }
  std::fprintf(stderr, "fiber: wrote %s\n", config::kProjectFileName);
  return 0;
}

}  // namespace

void AddInitCommand(CLI::App& app, int* status) {
  CLI::App* init = app.add_subcommand("init", "write a commented starter fiber.yaml here");
  init->callback([=] { *status = Init(); });
}

}  // namespace fiber::cli
