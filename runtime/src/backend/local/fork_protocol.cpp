#include "backend/local/fork_protocol.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>

namespace fiber::backend {

// The fields of a start follow its kind, each NUL-terminated: log file,
// memory bound, worker id, then the environment.
std::string EncodeStart(const ForkRequest& request) {
  std::string packet(1, static_cast<char>(ForkPacket::kStart));
  packet += request.log_file + '\0' + std::to_string(request.memory_mb) + '\0' + request.worker_id + '\0';
  for (const auto& entry : request.environment) packet += entry + '\0';
  return packet;
}

bool DecodeStart(const std::string& packet, ForkRequest* out) {
  if (!Is(packet, ForkPacket::kStart)) return false;
  std::vector<std::string> fields;
  std::size_t at = 1;
  while (at < packet.size()) {
    const std::size_t end = packet.find('\0', at);
    if (end == std::string::npos) return false;
    fields.push_back(packet.substr(at, end - at));
    at = end + 1;
  }
  if (fields.size() < 3) return false;
  out->log_file = fields[0];
  out->memory_mb = std::strtoll(fields[1].c_str(), nullptr, 10);
  out->worker_id = fields[2];
  out->environment.assign(fields.begin() + 3, fields.end());
  return true;
}

std::string EncodePid(ForkPacket kind, pid_t pid) { return static_cast<char>(kind) + std::to_string(pid); }

pid_t DecodePid(const std::string& packet) {
  return packet.size() < 2 ? 0 : static_cast<pid_t>(std::strtol(packet.c_str() + 1, nullptr, 10));
}

std::string EncodeError(const std::string& reason) { return static_cast<char>(ForkPacket::kError) + reason; }

std::string DecodeError(const std::string& packet) { return packet.empty() ? "" : packet.substr(1); }

// Its pid and wait status, in decimal, a space between.
std::string EncodeExit(const ForkedExit& exit) {
  return static_cast<char>(ForkPacket::kExit) + std::to_string(exit.pid) + " " + std::to_string(exit.wait_status);
}

ForkedExit DecodeExit(const std::string& packet) {
  ForkedExit e;
  if (packet.size() < 2) return e;
  char* rest = nullptr;
  e.pid = static_cast<pid_t>(std::strtol(packet.c_str() + 1, &rest, 10));
  e.wait_status = static_cast<int>(std::strtol(rest, nullptr, 10));
  return e;
}

int ReceivePacket(int fd, std::string* packet, int flags) {
  for (;;) {
    const ssize_t size = ::recv(fd, nullptr, 0, MSG_PEEK | MSG_TRUNC | flags);
    if (size < 0 && errno == EINTR) continue;
    if (size < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return -1;
    if (size <= 0) return 0;
    packet->resize(static_cast<std::size_t>(size));
    const ssize_t got = ::recv(fd, packet->data(), packet->size(), flags);
    if (got < 0 && errno == EINTR) continue;
    return got == size ? 1 : 0;
  }
}

}  // namespace fiber::backend
