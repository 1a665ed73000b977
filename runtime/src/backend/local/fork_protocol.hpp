// What the local backend's fork server and its client say to each other:
// SOCK_SEQPACKET packets over a socketpair, one message each. A request to
// start carries the worker's whole environment, its log file and memory
// bound; the server answers with the pid or the reason, and reports each
// worker's end. Both sides are single-threaded; these are plain functions.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fiber::backend {

/// The descriptor the server finds its end on.
inline constexpr int kForkServerEnd = 3;

/// What one worker is started with.
struct ForkRequest {
  std::vector<std::string> environment;  // NAME=value, the worker's whole
  std::string log_file;                  // empty: the master's stderr, headed
  std::string worker_id;                 // heads its lines on the master's stderr
  std::int64_t memory_mb = 0;            // 0: no bound on its address space
};

/// A worker the fork server saw end: its pid and wait status.
struct ForkedExit {
  pid_t pid = 0;
  int wait_status = 0;
};

/// The kinds of packet, its first byte: a request to start, its answer (a
/// pid or the reason it failed), a kill and an exit report.
enum class ForkPacket : char { kStart = 'S', kPid = 'P', kError = 'E', kKill = 'K', kExit = 'X' };

/// The packet's kind, or 0 for an empty one.
inline char KindOf(const std::string& packet) { return packet.empty() ? '\0' : packet[0]; }
inline bool Is(const std::string& packet, ForkPacket kind) { return KindOf(packet) == static_cast<char>(kind); }

std::string EncodeStart(const ForkRequest& request);
/// False for a packet that is not a whole start request.
[[nodiscard]] bool DecodeStart(const std::string& packet, ForkRequest* out);
/// A packet of kind carrying a pid (kPid, kKill).
std::string EncodePid(ForkPacket kind, pid_t pid);
pid_t DecodePid(const std::string& packet);
std::string EncodeError(const std::string& reason);
std::string DecodeError(const std::string& packet);
std::string EncodeExit(const ForkedExit& exit);
ForkedExit DecodeExit(const std::string& packet);

/// Reads one whole packet from fd: 1, the end of the stream: 0, none yet
/// (with MSG_DONTWAIT in flags): -1.
int ReceivePacket(int fd, std::string* packet, int flags);

}  // namespace fiber::backend
