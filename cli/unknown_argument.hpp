// What fiber says of a command or option it does not know, in its own words:
// the word, the command it was given to, and the nearest name when one is close.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace fiber::cli {

/// "-x", "--name", "--name=VALUE": a word that names an option ("-" alone
/// and the "--" that ends them do not).
bool IsOptionWord(const std::string& word);

/// "unknown option '--detatch' for 'fiber run'; did you mean '--detach'?":
/// word (its "=VALUE" cut off) is none of command's options. The nearest of
/// its long options when one is close, else otherwise (" (...)" or "").
std::string UnknownOption(const CLI::App& command, const std::string& word,
                          const std::string& otherwise = "");

/// What fiber's one error line says of a failed parse: of the first word
/// left over in the commands chosen that is an option or stands where a
/// subcommand goes, UnknownOption or "unknown command 'staus'" (with the
/// nearest command when one is close); else error's own message.
std::string ParseErrorMessage(const CLI::App& fiber, const CLI::ParseError& error);

}  // namespace fiber::cli
