#include "master/control.hpp"

#include <sys/stat.h>

#include "runs/control_protocol.hpp"

namespace fiber::master {

ControlSocket::ControlSocket(zmq::context_t& context, Status status, Status run_status)
    : socket_(context, zmq::socket_type::rep), status_(std::move(status)), run_status_(std::move(run_status)) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::maxmsgsize, runs::kControlMaxRequestBytes);
}

bool ControlSocket::Bind(const std::string& run_dir, std::string* err) {
  const std::string path = runs::ControlSocketPath(run_dir);
  try {
    socket_.bind(runs::ControlEndpoint(run_dir));
  } catch (const zmq::error_t& e) {
    *err = "cannot open the control socket " + path + ": " + e.what();
    return false;
  }
  ::chmod(path.c_str(), 0600);
  return true;
}

void ControlSocket::Answer() {
  for (;;) {
    zmq::message_t request;
    if (!socket_.recv(request, zmq::recv_flags::dontwait)) return;
    const std::string what = request.to_string();
    const std::string reply = what == runs::kControlStatus      ? status_()
                              : what == runs::kControlRunStatus ? run_status_()
                                                                : std::string(runs::kControlUnknownAnswer);
    (void)socket_.send(zmq::buffer(reply), zmq::send_flags::dontwait);
  }
}

}  // namespace fiber::master
