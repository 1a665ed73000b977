#include "master/run.hpp"

#include <cstdio>
#include <mutex>
#include <random>

#include "fiber/errors.hpp"

namespace fiber::master {

namespace {

// 12 hex digits: unique enough to tell the runs of one machine or cluster apart.
std::string NewRunId() {
  std::random_device random;
  const std::uint64_t bits = (static_cast<std::uint64_t>(random()) << 32) | random();
  char buf[16];
  std::snprintf(buf, sizeof buf, "%012llx",
                static_cast<unsigned long long>(bits & 0xffffffffffffULL));
  return buf;
}

}  // namespace

Run& Run::Get() {
  static std::mutex mu;
  static std::unique_ptr<Run> run;
  std::lock_guard<std::mutex> lock(mu);
  if (!run) {
    std::unique_ptr<Run> made(new Run(config::Current()));
    std::string err;
    if (!made->Start(&err)) throw Error(err);
    run = std::move(made);
  }
  return *run;
}

bool Run::Start(std::string* err) {
  id_ = NewRunId();
  if (!wire::Credentials::Generate(&credentials_, err)) return false;
  dispatcher_ = std::make_unique<Dispatcher>(settings_, credentials_);
  return dispatcher_->Start(err);
}

worker::Bootstrap Run::bootstrap() const {
  worker::Bootstrap b;
  b.run_id = id_;
  b.master = dispatcher_->endpoint();
  b.server_public = credentials_.server_public;
  b.client_secret = credentials_.client_secret;
  b.client_public = credentials_.client_public;
  b.heartbeat_interval = settings_.heartbeat_interval;
  b.heartbeat_timeout = settings_.heartbeat_timeout;
  b.start_timeout = settings_.start_timeout;
  return b;
}

}  // namespace fiber::master
