#include "backend/container/start_diagnosis.hpp"

#include "image/elf_file.hpp"

namespace fiber::backend {

std::string DiagnoseStart(const engine::Client& engine, const std::string& id,
                          const std::string& image, const std::string& program,
                          const std::string& engine_error) {
  const std::string in_image = " in image " + image;
  if (engine_error.find("no such file or directory") != std::string::npos) {
    bool exists = false;
    std::string err;
    if (engine.PathExists(id, program, &exists, &err) && !exists)
      return "the program " + program + " is not" + in_image +
             " (a worker runs the master's program at the same path)";
    image::ElfFile elf;
    const std::string& loader = elf.interpreter;
    if (image::ReadElfFile(program, &elf, &err) && !loader.empty() &&
        engine.PathExists(id, loader, &exists, &err) && !exists)
      return "the program's dynamic loader " + loader + " is not" + in_image +
             " (it runs " + program + ")";
  }
  if (engine_error.find("permission denied") != std::string::npos)
    return "the program " + program + " cannot be executed" + in_image + " (permission denied)";
  return "the program " + program + " cannot start" + in_image + ": " + engine_error;
}

}  // namespace fiber::backend
