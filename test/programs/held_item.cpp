// A master holding one large queue item that a worker put through shared
// memory (an item file, wire/item_files.hpp): once the item is in, it
// prints "held" and waits to be killed. Tests use it to see what a master
// killed with kill -9 leaves in /dev/shm, and who removes it.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

void put_item(fiber::Queue<std::string> queue, int mib) {
  queue.put(std::string(static_cast<std::size_t>(mib) << 20, 'x'));
}
FIBER_TASK(put_item);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int mib = argc > 1 ? std::atoi(argv[1]) : 8;
  fiber::Queue<std::string> queue;
  fiber::Process producer(put_item, queue, mib);
  producer.start();
  producer.join();  // its exit waits for its puts: the item is in
  std::printf("held %zu\n", queue.qsize());
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::hours(1));
}
