#include "config/starter_file.hpp"

#include "config/setting_table.hpp"

namespace fiber::config {

std::string StarterFile() {
  std::string text =
      "# fiber settings for programs started in this directory or below it.\n"
      "# Each key shows its default; uncomment a line to change it. FIBER_*\n"
      "# variables and flags override this file, and this file overrides\n"
      "# ~/.config/fiber/config.yaml.\n";
  const Settings defaults;
  for (const Setting& s : Table()) {
    const std::string value = s.kind.show(defaults);
    text += std::string("\n# ") + s.description + "\n";
    // A setting without a default is shown by example only.
    text += value.empty() ? std::string("# ") + s.key + ": NAME\n"
                          : std::string("#") + s.key + ": " + value + "\n";
  }
  text +=
      "\n# Named sets of the keys above, applied over this file's top level\n"
      "# when chosen by --profile, FIBER_PROFILE or profile: above.\n"
      "#profiles:\n"
      "#  big:\n"
      "#    cpu: 4\n"
      "#    memory: 8Gi\n";
  return text;
}

}  // namespace fiber::config
