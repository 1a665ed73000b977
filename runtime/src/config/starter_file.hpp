// The fiber.yaml that `fiber init` writes: every setting with its
// description and its default, commented out, and an example profile.
#pragma once

#include <string>

namespace fiber::config {

std::string StarterFile();

}  // namespace fiber::config
