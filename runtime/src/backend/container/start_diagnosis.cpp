#include "backend/container/start_diagnosis.hpp"

#include <elf.h>

#include <fstream>

namespace fiber::backend {

std::string ElfInterpreter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) ||
      std::string(reinterpret_cast<char*>(eh.e_ident), 4) != ELFMAG ||
      eh.e_ident[EI_CLASS] != ELFCLASS64)
    return "";
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return "";
    if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > 4096) continue;
    std::string interp(ph.p_filesz, '\0');
    in.seekg(static_cast<std::streamoff>(ph.p_offset));
    if (!in.read(interp.data(), static_cast<std::streamsize>(interp.size()))) return "";
    return interp.substr(0, interp.find('\0'));
  }
  return "";
}

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
    const std::string loader = ElfInterpreter(program);
    if (!loader.empty() && engine.PathExists(id, loader, &exists, &err) && !exists)
      return "the program's dynamic loader " + loader + " is not" + in_image +
             " (it runs " + program + ")";
  }
  if (engine_error.find("permission denied") != std::string::npos)
    return "the program " + program + " cannot be executed" + in_image + " (permission denied)";
  return "the program " + program + " cannot start" + in_image + ": " + engine_error;
}

}  // namespace fiber::backend
