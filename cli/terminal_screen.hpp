// The terminal as fiber top draws on it: the alternate screen, no cursor,
// keys read one at a time without echo; all put back as it was when the
// screen goes (also after an error or a signal the caller turned into a
// return). Plain ANSI escape codes. Not thread-safe.
#pragma once

#include <termios.h>

#include <string>
#include <vector>

namespace fiber::cli {

class TerminalScreen {
 public:
  /// Takes over the terminal on fd in (keys) and out (the screen); false
  /// with *err when they are not a terminal.
  [[nodiscard]] bool Open(int in, int out, std::string* err);
  ~TerminalScreen();

  /// Rows and columns now (they change when the window is resized).
  void Size(int* rows, int* columns) const;
  /// Draws lines from the top left, each cut to the width, the rest of the
  /// screen cleared.
  void Draw(const std::vector<std::string>& lines) const;

 private:
  int in_ = -1, out_ = -1;
  bool open_ = false;
  termios saved_{};
};

}  // namespace fiber::cli
