#include "control_client.hpp"

#include <sys/stat.h>

#include <zmq.hpp>

#include "runs/control_protocol.hpp"

namespace fiber::cli {

bool ControlClient::Query(const std::string& run_dir, const std::string& request,
                          nlohmann::json* status, std::string* err) {
  const std::string path = runs::ControlSocketPath(run_dir);
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    *err = "no control socket";
    return false;
  }
  try {
    zmq::socket_t req(context_, zmq::socket_type::req);
    req.set(zmq::sockopt::linger, 0);
    req.set(zmq::sockopt::rcvtimeo, runs::kControlAnswerMs);
    req.set(zmq::sockopt::sndtimeo, runs::kControlAnswerMs);
    req.connect(runs::ControlEndpoint(run_dir));
    if (!req.send(zmq::buffer(request), zmq::send_flags::none)) {
      *err = "the master does not answer";
      return false;
    }
    zmq::message_t reply;
    if (!req.recv(reply)) {
      *err = "the master does not answer";
      return false;
    }
    *status = nlohmann::json::parse(reply.to_string(), nullptr, false);
    if (status->is_discarded()) {
      *err = "the master's status is not JSON";
      return false;
    }
    return true;
  } catch (const zmq::error_t& e) {
    *err = e.what();
    return false;
  }
}

}  // namespace fiber::cli
