// The ZeroMQ floors of bench/memory, no framework. Memory: VmRSS of a
// process with a bare ZeroMQ ROUTER (CURVE server, as fiber's master) before
// the socket exists and after N forked processes have each connected a
// DEALER (CURVE client) and been heard from once. With --generation, then
// the same generation as memory's: 2,048 tasks of 100 ms dealt round-robin,
// one message each, every process sleeping and answering, as a fiber worker
// does over its own connection. Usage: zmq_memory N [--generation]; prints
// one JSON object.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "common.hpp"
#include "process_probe.hpp"

namespace {

constexpr std::size_t kRecord = 128;  // one endpoint per atomic pipe write

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::stoi(argv[1]) : 256;
  const bool generation = argc > 2 && std::strcmp(argv[2], "--generation") == 0;
  const int tasks = 2048;
  char server_public[41], server_secret[41], client_public[41], client_secret[41];
  if (zmq_curve_keypair(server_public, server_secret) != 0 ||
      zmq_curve_keypair(client_public, client_secret) != 0)
    return 1;

  int to_children[2];
  if (::pipe(to_children) != 0) return 1;
  std::vector<pid_t> children;
  for (int i = 0; i < n; ++i) {  // before any ZeroMQ context exists
    const pid_t pid = ::fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      ::close(to_children[1]);
      char endpoint[kRecord];
      if (::read(to_children[0], endpoint, kRecord) != static_cast<ssize_t>(kRecord)) ::_exit(1);
      zmq::context_t context(1);
      zmq::socket_t dealer(context, zmq::socket_type::dealer);
      dealer.set(zmq::sockopt::curve_serverkey, server_public);
      dealer.set(zmq::sockopt::curve_publickey, client_public);
      dealer.set(zmq::sockopt::curve_secretkey, client_secret);
      dealer.set(zmq::sockopt::linger, 0);
      dealer.connect(endpoint);
      dealer.send(zmq::str_buffer("hello"), zmq::send_flags::none);
      // Tasks until "stop": each a 100 ms nap, answered with its own bytes.
      for (zmq::message_t task; dealer.recv(task) && task.to_string_view() != "stop";) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        dealer.send(task, zmq::send_flags::none);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(to_children[0]);

  const long before = resident_kb();
  long after = 0;
  double generation_s = 0;
  {
    zmq::context_t context(1);
    zmq::socket_t router(context, zmq::socket_type::router);
    router.set(zmq::sockopt::curve_server, 1);
    router.set(zmq::sockopt::curve_secretkey, server_secret);
    router.set(zmq::sockopt::linger, 0);
    router.bind("tcp://127.0.0.1:*");
    char record[kRecord] = {};
    const std::string endpoint = router.get(zmq::sockopt::last_endpoint);
    std::strncpy(record, endpoint.c_str(), kRecord - 1);
    for (int i = 0; i < n; ++i)
      if (::write(to_children[1], record, kRecord) != static_cast<ssize_t>(kRecord)) return 1;
    std::vector<std::string> peers;
    for (int i = 0; i < n; ++i) {
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(router, std::back_inserter(parts))) return 1;
      peers.push_back(parts.front().to_string());
    }
    after = resident_kb();
    const auto send_to = [&](const std::string& peer, const std::string& body) {
      router.send(zmq::buffer(peer), zmq::send_flags::sndmore);
      router.send(zmq::buffer(body), zmq::send_flags::none);
    };
    if (generation) {
      const auto t0 = bench::Clock::now();
      for (int t = 0; t < tasks; ++t) send_to(peers[t % n], "task");
      for (int got = 0; got < tasks; ++got) {
        std::vector<zmq::message_t> parts;
        if (!zmq::recv_multipart(router, std::back_inserter(parts))) return 1;
      }
      generation_s = bench::seconds_since(t0);
    }
    router.set(zmq::sockopt::linger, 10000);  // the stops go out before the context ends
    for (const auto& peer : peers) send_to(peer, "stop");
  }
  for (pid_t pid : children) ::waitpid(pid, nullptr, 0);

  bench::Json out;
  out.num("workers", n)
      .num("rss_before_kb", before)
      .num("rss_after_kb", after)
      .num("per_worker_kb", double(after - before) / n);
  if (generation)
    out.num("generation_s", generation_s).num("generation_ideal_s", std::ceil(double(tasks) / n) * 0.1);
  std::cout << out.text() << "\n";
}
