// What the master does with a REQUEST from any process of the run: a queue
// request goes to the run's QueueTable; a call to a manager's object
// becomes a task of that manager's pool, answered when its outcome is in.
// Driven by the dispatcher's I/O thread only, like the pools.
#pragma once

#include <functional>

#include "master/pool_service.hpp"
#include "master/queue_table.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class RequestService {
 public:
  using FindPool = std::function<PoolService*(wire::Channel)>;
  explicit RequestService(FindPool find_pool) : find_pool_(std::move(find_pool)) {}

  void Handle(const wire::Request& request, QueueTable::Answer answer, Clock::time_point now);
  void Tick(Clock::time_point now) { queues_.Tick(now); }

 private:
  void CallManager(const wire::Request& request, QueueTable::Answer answer,
                   Clock::time_point now);

  QueueTable queues_;
  FindPool find_pool_;
};

}  // namespace fiber::master
