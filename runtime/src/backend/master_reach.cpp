#include "backend/master_reach.hpp"

#include "http/loopback_host.hpp"

namespace fiber::backend {

std::string EndpointHost(const std::string& endpoint) {
  const std::size_t scheme = endpoint.find("://");
  const std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const std::size_t end = endpoint.rfind(':');
  return endpoint.substr(start, end != std::string::npos && end > start ? end - start : std::string::npos);
}

bool ThisMachineOnly(const std::string& host) {
  return http::IsLoopbackHost(host) || host == "0.0.0.0" || host == "*" || host == "[::]" ||
         host == "::";
}

}  // namespace fiber::backend
