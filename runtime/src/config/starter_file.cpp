#include "config/starter_file.hpp"

#include "config/setting_table.hpp"

namespace fiber::config {

std::string StarterFile() {
  std::string text =
      "# fiber settings for programs started in this directory or below it.\n"
      "# Each key shows its default; uncomment a line (remove its #) to change\n"
      "# it. A key with no default shows what it takes in <>, to replace.\n"
      "# FIBER_* variables and flags override this file, and this file\n"
      "# overrides ~/.config/fiber/config.yaml.\n";
  const Settings defaults;
  for (const Setting& s : Table()) {
    const std::string value = s.kind.show(defaults);
    text += std::string("\n# ") + s.description + "\n";
    // A setting without a default shows what it takes, as prose: a line
    // uncommented as it stands would set it to the placeholder.
    text += value.empty() ? std::string("# ") + s.key + ": <" + s.kind.takes + ">\n"
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
