// Pipe: two connected ends, as multiprocessing.Pipe gives. The main program
// keeps one end and hands the other to a Process, which answers every
// message it receives until the main program closes its end.
//   ./build/examples/pipe
#include <fiber/fiber.hpp>

#include <cctype>
#include <cstdio>
#include <string>

using Connection = fiber::Pipe<std::string>::Connection;

void shout(Connection conn) {
  try {
    for (;;) {
      std::string text = conn.recv();
      for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      conn.send(text + "!");
    }
  } catch (const fiber::Closed&) {
    // the other end closed: done
  }
}
FIBER_TASK(shout);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  auto [mine, theirs] = fiber::Pipe<std::string>(true);  // duplex
  fiber::Process echo(shout, theirs);
  echo.start();

  for (const char* word : {"hello", "from", "the", "master"}) {
    mine.send(word);
    std::printf("sent %s, got %s\n", word, mine.recv().c_str());
  }
  mine.close();  // shout's recv throws fiber::Closed and it returns
  echo.join();
  std::printf("echo exited with %d\n", echo.exitcode().value_or(-1));
}
