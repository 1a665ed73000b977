#include "backend/container/start_diagnosis.hpp"

#include "os/elf_file.hpp"

namespace fiber::backend {

bool CheckProgramIn(const engine::Client& engine, const std::string& id, const std::string& image,
                    const std::string& program, std::string* err) {
  const std::string in_image = " in image " + image;
  bool exists = false;
  if (!engine.PathExists(id, program, &exists, err)) return false;
  if (!exists) {
    *err = "the program " + program + " is not" + in_image +
           " (a worker runs the master's program at the same path)";
    return false;
  }
  os::ElfFile elf;
  std::string unused;
  const std::string& loader = elf.interpreter;
  if (!os::ReadElfFile(program, &elf, &unused) || loader.empty()) return true;
  if (!engine.PathExists(id, loader, &exists, err)) return false;
  if (!exists) {
    *err = "the program's dynamic loader " + loader + " is not" + in_image + " (it runs " + program + ")";
    return false;
  }
  return true;
}

std::string DescribeStartFailure(const std::string& image, const std::string& program,
                                 const std::string& engine_error) {
  const std::string in_image = " in image " + image;
  if (engine_error.find("permission denied") != std::string::npos)
    return "the program " + program + " cannot be executed" + in_image + " (permission denied)";
  return "the program " + program + " cannot start" + in_image + ": " + engine_error;
}

}  // namespace fiber::backend
