// The round-trip floor: a raw ZeroMQ REQ/REP ping-pong of a 16-byte message
// with a forked child over tcp://127.0.0.1, plain or with CURVE, and no
// framework. overhead.cpp measures it in blocks interleaved with fiber's
// calls, so both see the same machine at the same minutes.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <zmq.hpp>

#include "common.hpp"

namespace bench {

class RawPingPong {
 public:
  /// Forks the answering child. Make every RawPingPong before anything in
  /// this process creates a ZeroMQ context: the child must not inherit one.
  explicit RawPingPong(bool curve) : curve_(curve) {
    if (curve && (zmq_curve_keypair(server_public_, server_secret_) != 0 ||
                  zmq_curve_keypair(client_public_, client_secret_) != 0))
      throw std::runtime_error("this libzmq has no CURVE");
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    child_ = ::fork();
    if (child_ < 0) throw std::runtime_error("fork failed");
    if (child_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::close(fds[0]);
      Serve(fds[1]);
      ::_exit(0);
    }
    ::close(fds[1]);
    char c;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') endpoint_ += c;
    ::close(fds[0]);
  }

  ~RawPingPong() {
    socket_.reset();
    context_.reset();
    ::kill(child_, SIGKILL);
    ::waitpid(child_, nullptr, 0);
  }

  /// One ping-pong, in microseconds.
  double RoundTripUs() {
    if (!socket_) Connect();
    const auto t0 = Clock::now();
    socket_->send(zmq::buffer(ping_), zmq::send_flags::none);
    zmq::message_t pong;
    if (!socket_->recv(pong)) throw std::runtime_error("ping-pong child gone");
    return 1e6 * seconds_since(t0);
  }

 private:
  void Serve(int fd) {
    zmq::context_t context(1);
    zmq::socket_t rep(context, zmq::socket_type::rep);
    if (curve_) {
      rep.set(zmq::sockopt::curve_server, 1);
      rep.set(zmq::sockopt::curve_secretkey, server_secret_);
    }
    rep.bind("tcp://127.0.0.1:*");
    const std::string endpoint = rep.get(zmq::sockopt::last_endpoint) + "\n";
    if (::write(fd, endpoint.data(), endpoint.size()) < 0) ::_exit(1);
    ::close(fd);
    for (;;) {
      zmq::message_t m;
      if (!rep.recv(m)) ::_exit(1);
      rep.send(m, zmq::send_flags::none);
    }
  }

  void Connect() {
    context_ = std::make_unique<zmq::context_t>(1);
    socket_ = std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::req);
    if (curve_) {
      socket_->set(zmq::sockopt::curve_serverkey, server_public_);
      socket_->set(zmq::sockopt::curve_publickey, client_public_);
      socket_->set(zmq::sockopt::curve_secretkey, client_secret_);
    }
    socket_->connect(endpoint_);
  }

  bool curve_;
  char server_public_[41] = {}, server_secret_[41] = {};
  char client_public_[41] = {}, client_secret_[41] = {};
  pid_t child_ = -1;
  std::string endpoint_;
  const std::string ping_ = std::string(16, 'p');
  std::unique_ptr<zmq::context_t> context_;
  std::unique_ptr<zmq::socket_t> socket_;
};

}  // namespace bench
