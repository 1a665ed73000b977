#include "unknown_argument.hpp"

#include <algorithm>
#include <vector>

#include "config/did_you_mean.hpp"

namespace fiber::cli {

namespace {

// "fiber run", "fiber image build": the command as a user types it.
std::string CommandPath(const CLI::App& command) {
  const CLI::App* parent = command.get_parent();
  return parent ? CommandPath(*parent) + " " + command.get_name() : command.get_name();
}

// "unknown WHAT 'WORD' for 'fiber run'; did you mean 'NEAREST'?": no "for"
// of fiber itself, and otherwise in place of the question when no name is
// nearest ("").
std::string Unknown(const std::string& what, const std::string& word, const CLI::App& command,
                    const std::string& nearest, const std::string& otherwise = "") {
  return "unknown " + what + " '" + word + "'" + (command.get_parent() ? " for '" + CommandPath(command) + "'" : "") +
         (nearest.empty() ? otherwise : "; did you mean '" + nearest + "'?");
}

// The subcommands --help lists (not __complete, nor CLI11's nameless groups).
std::vector<std::string> ListedSubcommands(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands({}))
    if (!sub->get_name().empty() && !sub->get_group().empty()) names.push_back(sub->get_name());
  return names;
}

// The error for the first word no command chosen knows; "" when none is
// left over. The words of a command that keeps them (fiber run's PROGRAM
// and ARGS) are its own.
std::string FirstUnknown(const CLI::App& command) {
  if (!command.get_prefix_command() && !command.get_allow_extras()) {
    const std::vector<std::string> commands = ListedSubcommands(command);
    for (const std::string& word : command.remaining()) {
      if (word == "--") continue;  // where options end, kept by CLI11
      if (IsOptionWord(word)) return UnknownOption(command, word);
      if (!commands.empty()) return Unknown("command", word, command, config::Closest(word, commands));
      // Else an argument too many, which CLI11's own message names.
    }
  }
  for (const CLI::App* chosen : command.get_subcommands()) {
    std::string unknown = FirstUnknown(*chosen);
    if (!unknown.empty()) return unknown;
  }
  return "";
}

}  // namespace

bool IsOptionWord(const std::string& word) { return word.size() > 1 && word[0] == '-' && word != "--"; }

std::string UnknownOption(const CLI::App& command, const std::string& word, const std::string& otherwise) {
  const std::string name = word.substr(0, word.find('='));
  // Compared without their dashes, so that a third of the letters are a
  // third of the name's.
  std::vector<std::string> long_names;
  for (const CLI::Option* option : command.get_options())
    if (!option->get_group().empty())
      for (const std::string& long_name : option->get_lnames()) long_names.push_back(long_name);
  const std::string letters = name.substr(std::min(name.find_first_not_of('-'), name.size()));
  const std::string nearest = config::Closest(letters, long_names);
  return Unknown("option", name, command, nearest.empty() ? "" : "--" + nearest, otherwise);
}

std::string ParseErrorMessage(const CLI::App& fiber, const CLI::ParseError& error) {
  const std::string unknown = FirstUnknown(fiber);
  return unknown.empty() ? error.what() : unknown;
}

}  // namespace fiber::cli
