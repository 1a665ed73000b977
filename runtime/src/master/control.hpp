// The run's control socket, the master's end: a ZeroMQ REP socket on a Unix
// socket in the run's directory, answering "status" and "run-status" as
// runs/control_protocol.hpp says. The directory is its owner's only (mode
// 0700), and so is the socket. Polled by the dispatcher's I/O thread, which
// owns it.
#pragma once

#include <functional>
#include <string>
#include <zmq.hpp>

namespace fiber::master {

class ControlSocket {
 public:
  /// What "status" or "run-status" is answered with (JSON text).
  using Status = std::function<std::string()>;
  ControlSocket(zmq::context_t& context, Status status, Status run_status);

  /// Binds in run_dir; false with *err.
  [[nodiscard]] bool Bind(const std::string& run_dir, std::string* err);
  void* handle() { return socket_.handle(); }
  /// Answers every request waiting; call when the socket is readable.
  void Answer();

 private:
  zmq::socket_t socket_;
  Status status_, run_status_;
};

}  // namespace fiber::master
