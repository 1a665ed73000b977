// A project directory holding a copy of image_probe and a data file listed
// to go along, as the image tests package it.
#pragma once

#include <filesystem>
#include <string>

#include "image/package.hpp"
#include "subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

struct ProbeProject {
  TempDir dir;
  TempDir blobs;
  std::string program;
  ProbeProject() {
    program = dir.path() + "/bin/image_probe";
    std::filesystem::create_directories(dir.path() + "/bin");
    std::filesystem::copy_file(built_program("image_probe"), program);
    dir.write("data/greeting.txt", "hello from a listed file\n");
  }
  image::PackageInputs Inputs() const {
    image::PackageInputs in;
    in.program = program;
    in.files = {"data"};
    in.base_dir = dir.path();
    in.blob_dir = blobs.path();
    return in;
  }
};

}  // namespace fiber::testing
