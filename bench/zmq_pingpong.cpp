// The floor for a round trip: a raw ZeroMQ REQ/REP ping-pong of a 16-byte
// message between two processes (this one and a forked child) over
// tcp://127.0.0.1, plain, with no framework. With --curve the same with CURVE
// encryption, to show what encryption alone costs. Prints one JSON object;
// --quick (or FIBER_BENCH_QUICK=1) divides the count by 10.
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "common.hpp"

namespace {

struct Keys {
  char server_public[41], server_secret[41], client_public[41], client_secret[41];
};

// The child: answers every ping; tells the parent its endpoint through fd.
void serve(int fd, int total, const Keys* keys) {
  zmq::context_t context(1);
  zmq::socket_t rep(context, zmq::socket_type::rep);
  if (keys) {
    rep.set(zmq::sockopt::curve_server, 1);
    rep.set(zmq::sockopt::curve_secretkey, keys->server_secret);
  }
  rep.bind("tcp://127.0.0.1:*");
  const std::string endpoint = rep.get(zmq::sockopt::last_endpoint) + "\n";
  if (::write(fd, endpoint.data(), endpoint.size()) < 0) ::_exit(1);
  ::close(fd);
  for (int i = 0; i < total; ++i) {
    zmq::message_t m;
    if (!rep.recv(m)) ::_exit(1);
    rep.send(m, zmq::send_flags::none);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool curve = false;
  for (int i = 1; i < argc; ++i) curve |= std::string(argv[i]) == "--curve";
  const int warmup = 500, calls = 20000 / (bench::quick(argc, argv) ? 10 : 1);
  Keys keys;
  if (curve && (zmq_curve_keypair(keys.server_public, keys.server_secret) != 0 ||
                zmq_curve_keypair(keys.client_public, keys.client_secret) != 0)) {
    std::cerr << "this libzmq has no CURVE\n";
    return 1;
  }

  int fds[2];
  if (::pipe(fds) != 0) return 1;
  const pid_t child = ::fork();  // before any ZeroMQ context exists
  if (child < 0) return 1;
  if (child == 0) {
    ::close(fds[0]);
    serve(fds[1], warmup + calls, curve ? &keys : nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string endpoint;
  char c;
  while (::read(fds[0], &c, 1) == 1 && c != '\n') endpoint += c;
  ::close(fds[0]);

  std::vector<double> rtt;
  {
    zmq::context_t context(1);
    zmq::socket_t req(context, zmq::socket_type::req);
    if (curve) {
      req.set(zmq::sockopt::curve_serverkey, keys.server_public);
      req.set(zmq::sockopt::curve_publickey, keys.client_public);
      req.set(zmq::sockopt::curve_secretkey, keys.client_secret);
    }
    req.connect(endpoint);
    const std::string ping(16, 'p');
    for (int i = 0; i < warmup + calls; ++i) {
      const auto t0 = bench::Clock::now();
      req.send(zmq::buffer(ping), zmq::send_flags::none);
      zmq::message_t pong;
      if (!req.recv(pong)) return 1;
      if (i >= warmup) rtt.push_back(1e6 * bench::seconds_since(t0));
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  const bench::Stats st = bench::summarize(rtt);
  std::cout << bench::Json()
                   .str("transport", curve ? "tcp+curve" : "tcp")
                   .num("calls", calls)
                   .num("mean_us", st.mean)
                   .num("median_us", st.median)
                   .num("min_us", st.min)
                   .text()
            << "\n";
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
