// A real image registry (Debian's docker-registry) for one test: on a free
// loopback port, with its own storage, optionally asking for HTTP Basic
// credentials (an htpasswd file), and stopped with its storage removed when
// the test ends, failed or not.
#pragma once

#include <string>

#include "support/temp_dir.hpp"

namespace fiber::testing {

class TestRegistry {
 public:
  /// With a user, the registry takes only that user and password.
  explicit TestRegistry(const std::string& user = "", const std::string& password = "");
  ~TestRegistry();
  TestRegistry(const TestRegistry&) = delete;
  TestRegistry& operator=(const TestRegistry&) = delete;

  /// "127.0.0.1:PORT"
  const std::string& address() const { return address_; }
  /// Whether it answered on /v2/ once started.
  bool ready() const { return ready_; }

 private:
  TempDir dir_;
  std::string address_;
  int pid_ = -1;
  bool ready_ = false;
};

/// A loopback port nothing listens on right now.
int FreePort();

}  // namespace fiber::testing
