// Whether a worker on another machine can reach the master's endpoint: a
// loopback or wildcard host ("tcp://127.0.0.1:7000", "tcp://0.0.0.0:7000")
// names the machine the worker runs on, not the master's. Backends whose
// workers may run elsewhere (pods, Slurm nodes) refuse such an address
// before they start anything.
#pragma once

#include <string>

namespace fiber::backend {

/// The host of "tcp://HOST:PORT".
std::string EndpointHost(const std::string& endpoint);
/// Whether host is a loopback or wildcard address, or "localhost".
bool ThisMachineOnly(const std::string& host);

}  // namespace fiber::backend
