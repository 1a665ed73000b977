// A program the image tests package: it says it ran, then prints the first
// line of each file it is given (relative names from its working
// directory), so a test sees the program, its libraries and its listed
// files all arrived in the container. With "--fill-mib N" it fills N MiB of
// memory instead, for a container's memory limit to stop it.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--fill-mib") {
    const std::vector<char> memory(static_cast<std::size_t>(std::atoi(argv[2])) << 20, 1);
    std::cout << "filled " << memory.size() << " bytes" << std::endl;
    return 0;
  }
  std::cout << "image_probe ran";
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]);
    std::string line;
    if (std::getline(in, line))
      std::cout << " " << line;
    else
      std::cout << " (no " << argv[i] << ")";
  }
  std::cout << std::endl;
  return 0;
}
