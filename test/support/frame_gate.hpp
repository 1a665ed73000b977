// A TCP relay between one peer and a master that lets the peer's ZMTP
// frames through only as the test allows, so a test can stop a message
// partway: libzmq sends a message's frames only once the message is whole,
// but a hostile peer speaking ZMTP itself need not. Frames are counted from
// their plaintext ZMTP headers (CURVE encrypts only their bodies), after the
// 64-byte greeting. What the master sends passes freely. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace fiber::testing {

class FrameGate {
 public:
  /// Relays one connection, accepted on 127.0.0.1, to master ("tcp://host:port").
  explicit FrameGate(const std::string& master);
  ~FrameGate();
  FrameGate(const FrameGate&) = delete;
  FrameGate& operator=(const FrameGate&) = delete;

  /// tcp://127.0.0.1:PORT, for the peer to connect to.
  const std::string& endpoint() const { return endpoint_; }
  /// From now on, the peer's frames pass until this many have in all
  /// (handshake commands included); all pass until the first call.
  void PassUpTo(std::size_t frames);
  /// The peer's frames passed to the master so far.
  std::size_t passed() const { return passed_; }
  /// True once the master has ended the connection.
  bool closed() const { return closed_; }

 private:
  std::string endpoint_;
  std::atomic<std::size_t> allowed_;
  std::atomic<std::size_t> passed_{0};
  std::atomic<bool> closed_{false};
  std::atomic<bool> stopping_{false};
  int wake_fd_ = -1;
  std::thread thread_;
};

}  // namespace fiber::testing
