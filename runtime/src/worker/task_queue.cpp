#include "worker/task_queue.hpp"

#include "diagnostics/hop_trace.hpp"

namespace fiber::worker {

bool TaskQueue::Add(zmq::message_t message, std::string* err) {
  FIBER_HOP("w-got-task");
  // Parsed in place: the views point into the message's bytes, which a
  // short message keeps inside itself and a move would relocate.
  Received& received = queue_.emplace_back(std::move(message));
  if (!wire::ReadTasks(received.message, &received.tasks, err)) {
    queue_.pop_back();
    return false;
  }
  if (received.tasks.empty()) queue_.pop_back();
  return true;
}

const wire::TaskView* TaskQueue::Start() {
  while (!queue_.empty()) {
    Received& front = queue_.front();
    const wire::TaskView& task = front.tasks[front.next++];
    if (revoked_.erase(&task) == 0) return &task;
    Done();
  }
  return nullptr;
}

void TaskQueue::Done() {
  if (queue_.front().next == queue_.front().tasks.size()) queue_.pop_front();
}

bool TaskQueue::Revoke(std::uint64_t id) {
  // One for each id: a task lost elsewhere can be dealt here again.
  for (Received& received : queue_)
    for (std::size_t i = received.next; i < received.tasks.size(); ++i)
      if (received.tasks[i].id == id && revoked_.insert(&received.tasks[i]).second) return true;
  return false;
}

}  // namespace fiber::worker
