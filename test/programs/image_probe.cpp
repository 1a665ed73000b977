// A program the image tests package: it says it ran, then prints the first
// line of each file it is given (relative names from its working
// directory), so a test sees the program, its libraries and its listed
// files all arrived in the container.
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
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
