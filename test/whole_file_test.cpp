// The one reader of a whole file: all of it, or the system's reason.
#include "os/whole_file.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "support/temp_dir.hpp"

TEST_CASE("a whole file is read, bytes as they are") {
  fiber::testing::TempDir dir;
  const std::string path = dir.path() + "/f";
  std::string data(100000, 'x');
  data[5] = '\0';
  data.back() = '\n';
  std::ofstream(path, std::ios::binary) << data;
  std::string text = "left over", why;
  REQUIRE(fiber::os::ReadWholeFile(path, &text, &why));
  CHECK(text == data);
}

TEST_CASE("a file that cannot be read gives the system's reason") {
  fiber::testing::TempDir dir;
  std::string text, why;
  CHECK_FALSE(fiber::os::ReadWholeFile(dir.path() + "/nowhere", &text, &why));
  CHECK(why == "No such file or directory");
  CHECK_FALSE(fiber::os::ReadWholeFile(dir.path(), &text, &why));
  CHECK(why == "Is a directory");
}
