// fiber __complete WHAT: the words bash completion (completions/fiber.bash)
// offers, from the settings table and files rather than copies of them;
// hidden from help. Prints nothing it cannot find.
//   flags           every settings flag, and --config
//   choices -- FLAG the values a settings flag takes, when they are few
//   profiles        the profiles the settings files here define
//   settings        every setting's key, variable and flag, one setting a
//                   line, tab-separated (for test/man_pages_test.py)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "commands.hpp"
#include "settings_flags.hpp"

namespace fiber::cli {

namespace {

void Print(const std::vector<std::string>& words) {
  for (const std::string& w : words) std::printf("%s\n", w.c_str());
}

void Complete(const std::string& what, const std::string& flag) {
  if (what == "flags") {
    for (const config::Setting& s : config::Table()) std::printf("%s\n", s.flag);
    std::printf("--config\n");
  } else if (what == "choices") {
    for (const config::Setting& s : config::Table())
      if (flag == s.flag) Print(s.kind.choices);
  } else if (what == "settings") {
    for (const config::Setting& s : config::Table()) std::printf("%s\t%s\t%s\n", s.key, s.variable, s.flag);
  } else if (what == "profiles") {
    // The files fiber run would read; a file that does not read offers none.
    config::Resolved resolved;
    std::string err;
    if (!SettingsFlags{}.Resolve(&resolved, &err)) return;
    Print({resolved.profiles.begin(), resolved.profiles.end()});
  }
}

}  // namespace

void AddCompleteCommand(CLI::App& app, int* status) {
  auto what = std::make_shared<std::string>();
  auto flag = std::make_shared<std::string>();
  CLI::App* complete = app.add_subcommand("__complete", "words for bash completion");
  complete->group("");
  complete->add_option("what", *what)->required();
  complete->add_option("flag", *flag);
  complete->callback([=] {
    Complete(*what, *flag);
    *status = 0;
  });
}

}  // namespace fiber::cli
