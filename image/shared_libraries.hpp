// The shared libraries a dynamic executable loads, as its own dynamic loader
// finds them. We ask the loader (INTERPRETER --list PROGRAM, what ldd does)
// rather than follow DT_NEEDED ourselves: its answer is the search it will
// really make, with RUNPATH and RPATH, $ORIGIN, LD_LIBRARY_PATH, ld.so.cache
// and the hwcaps directories, which a reimplementation would only
// approximate. Listing maps the libraries but runs none of the program's
// code.
#pragma once

#include <string>
#include <vector>

namespace fiber::image {

/// The paths of every library program loads at start, the loader among
/// them, in the loader's order; false with *err naming a library the loader
/// cannot find ("PROGRAM needs libfoo.so.1, which the dynamic loader cannot
/// find") or why the loader failed.
[[nodiscard]] bool SharedLibraries(const std::string& program, const std::string& interpreter,
                                   std::vector<std::string>* paths, std::string* err);

/// The path of the library a program on this machine gets when it loads
/// soname later (dlopen), as the dynamic loader finds it; false with *err
/// when it finds none.
[[nodiscard]] bool LibraryPath(const std::string& soname, std::string* path, std::string* err);

}  // namespace fiber::image
