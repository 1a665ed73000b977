// The run's client in the master (client/run_client.hpp): each request goes
// straight to the dispatcher's I/O thread of the run in this process, made
// on first use; a queue get takes items already there on the caller's
// thread and reads them where the queue holds them.
#pragma once

#include <memory>

#include "client/run_client.hpp"

namespace fiber::client {

/// The master's client, for RunClient::SetMaker: makes the run (master::Run::Get).
std::unique_ptr<RunClient> MakeLocalClient();

}  // namespace fiber::client
