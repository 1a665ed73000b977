// The master side of a pool: one I/O thread that owns the ROUTER socket, the
// task table and the workers' leases. User threads hand it work through
// Post(); results go back through each task's Batch.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "backend/backend.hpp"
#include "config/settings.hpp"
#include "fiber/pool.hpp"
#include "master/admission.hpp"
#include "master/task_table.hpp"
#include "wire/credentials.hpp"
#include "wire/message.hpp"

namespace fiber::detail {

class Dispatcher {
 public:
  /// The most tasks a worker may ask to hold.
  static constexpr std::uint32_t kMaxCredit = 1024;
  /// A TASK message stops taking more tasks once it is this large.
  static constexpr std::size_t kMaxTaskBytes = 4 << 20;

  struct Options {
    config::Settings settings;
    int processes = 1;
    int max_task_retries = 3;
    Call initializer;
    wire::Credentials credentials;
  };
  Dispatcher(Options options, std::unique_ptr<backend::Backend> backend);
  /// Terminates what is still running and waits for the I/O thread.
  ~Dispatcher();

  /// Binds the socket and starts the I/O thread and the workers.
  bool Start(std::string* err);
  /// tcp://host:port workers connect to.
  const std::string& endpoint() const { return endpoint_; }

  /// Queues calls of function as tasks of chunksize calls each.
  void Submit(std::string function, std::vector<std::string> calls, std::size_t chunksize,
              std::shared_ptr<Batch> batch);
  void Resize(int processes);
  /// Workers stop once every queued task is done.
  void Close();
  /// Fails unfinished calls with PoolClosed and kills the workers.
  void Terminate();
  /// Waits until every worker is gone (after Close or Terminate).
  void Join();
  std::vector<WorkerInfo> Workers();

 private:
  using Clock = std::chrono::steady_clock;
  struct Worker {
    enum class State { kStarting, kReady, kRetiring };
    State state = State::kStarting;
    bool connected = false;  // said HELLO
    int credit = 0;
    std::vector<std::uint64_t> leases;
    Clock::time_point started, last_heard, last_sent;
    long pid = 0;
    bool stop_sent = false;
    Clock::time_point stop_sent_at;
  };

  /// Runs fn on the I/O thread; false once that thread has finished.
  bool Post(std::function<void()> fn);
  void Run();
  void RunPosted();
  void OnMessage(zmq::multipart_t& message);
  void OnHello(const std::string& id, std::uint8_t version, const zmq::message_t& body);
  void OnResult(const std::string& id, Worker& worker, const zmq::message_t& body);
  void Tick();
  void Dispatch();
  void StartWorkers();
  void Retire();
  void LoseWorker(const std::string& id, const std::string& why);
  void Break(detail::Outcome::Kind kind, const std::string& why);
  /// False when the worker's connection is gone.
  bool Send(const std::string& id, zmq::message_t message);
  bool SendControl(const std::string& id, wire::Type type);
  int LiveWorkers() const;
  void CheckFinished();

  Options options_;
  std::unique_ptr<backend::Backend> backend_;
  zmq::context_t context_;
  zmq::socket_t router_;
  std::unique_ptr<master::Admission> admission_;
  std::string endpoint_;
  int wake_fd_ = -1;
  std::thread thread_;

  // Shared with user threads.
  std::mutex mu_;
  std::condition_variable finished_cv_;
  std::vector<std::function<void()>> inbox_;
  bool finished_ = false;
  bool started_ = false;

  // I/O thread only.
  master::TaskTable tasks_;
  std::map<std::string, Worker> workers_;
  int target_ = 0;
  std::uint64_t next_worker_ = 0;
  bool closing_ = false;
  bool terminating_ = false;
  std::string broken_;  // why the pool can run nothing more
  detail::Outcome::Kind broken_kind_ = detail::Outcome::Kind::kWorkerLost;
  int start_failures_ = 0;  // workers lost in a row before connecting
  Clock::time_point last_tick_;
  std::uint64_t bad_messages_ = 0;
};

}  // namespace fiber::detail
