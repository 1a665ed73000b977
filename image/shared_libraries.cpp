#include "image/shared_libraries.hpp"

#include <dlfcn.h>
#include <link.h>

#include <sstream>

#include "os/run_capture.hpp"

namespace fiber::image {

namespace {

std::string Missing(const std::string& program, const std::string& library) {
  return program + " needs " + library +
         ", which the dynamic loader cannot find (install it, or add its directory to "
         "LD_LIBRARY_PATH)";
}

// "error while loading shared libraries: libfoo.so.1: cannot open ..." names
// the library; otherwise the loader's own words.
std::string LoaderFailure(const std::string& program, const std::string& output) {
  const std::string marker = "error while loading shared libraries: ";
  const auto at = output.find(marker);
  if (at != std::string::npos) {
    const auto name_at = at + marker.size();
    return Missing(program, output.substr(name_at, output.find(':', name_at) - name_at));
  }
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return "the dynamic loader cannot list the libraries of " + program + ": " + text;
}

}  // namespace

bool SharedLibraries(const std::string& program, const std::string& interpreter,
                     std::vector<std::string>* paths, std::string* err) {
  Capture what;
  what.argv = {interpreter, "--list", program};
  what.merge_stderr = true;
  Captured run;
  if (!RunCapture(what, &run, err)) return false;
  const std::string& output = run.output;
  if (run.status != 0) {
    *err = LoaderFailure(program, output);
    return false;
  }
  // "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)",
  // "\t/lib64/ld-linux-x86-64.so.2 (0x...)", "\tlinux-vdso.so.1 (0x...)"
  // (the kernel's, no file) and "\tlibfoo.so => not found".
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '\t') continue;
    line.erase(0, 1);
    std::string path = line;
    if (const auto arrow = line.find(" => "); arrow != std::string::npos) {
      path = line.substr(arrow + 4);
      if (path.rfind("not found", 0) == 0) {
        *err = Missing(program, line.substr(0, arrow));
        return false;
      }
    }
    path = path.substr(0, path.find(" (0x"));
    if (!path.empty() && path[0] == '/') paths->push_back(path);
  }
  return true;
}

bool LibraryPath(const std::string& soname, std::string* path, std::string* err) {
  void* lib = dlopen(soname.c_str(), RTLD_LAZY | RTLD_LOCAL);
  link_map* map = nullptr;
  if (!lib || dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name || !*map->l_name) {
    *err = "the program loads " + soname + " when it needs it, and the dynamic loader cannot find it here";
    if (lib) dlclose(lib);
    return false;
  }
  *path = map->l_name;
  dlclose(lib);
  return true;
}

}  // namespace fiber::image
