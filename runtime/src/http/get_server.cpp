#include "http/get_server.hpp"

#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "http/header_text.hpp"
#include "http/host_header.hpp"

namespace fiber::http {

namespace {

std::string Status(int code, const char* reason, const std::string& extra_headers,
                   const std::string& content_type, const std::string& body, bool head) {
  std::string out = "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\n";
  out += "Content-Type: " + content_type + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += extra_headers;
  out += "Connection: close\r\n\r\n";
  if (!head) out += body;
  return out;
}

std::string Plain(int code, const char* reason, const std::string& text, const std::string& extra = "") {
  return Status(code, reason, extra, "text/plain; charset=utf-8", text + "\n", false);
}

// What ZeroMQ can bind for host: an address or a network interface as it
// is, a name looked up (its IPv4 address when it has one).
std::string BindableHost(const std::string& host) {
  if (host == "*" || IsAddress(host) || ::if_nametoindex(host.c_str()) != 0) return host;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || !found) return host;
  const addrinfo* chosen = found;
  for (const addrinfo* a = found; a; a = a->ai_next)
    if (a->ai_family == AF_INET) {
      chosen = a;
      break;
    }
  char text[INET6_ADDRSTRLEN] = {};
  const bool ok = ::getnameinfo(chosen->ai_addr, chosen->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) == 0;
  ::freeaddrinfo(found);
  return ok ? text : host;
}

// The values of every header called name (lower case) in head, without
// the spaces around them.
std::vector<std::string> HeaderValues(const std::string& head, const std::string& name) {
  std::vector<std::string> values;
  for (std::size_t at = head.find("\r\n"); at != std::string::npos; at = head.find("\r\n", at + 2)) {
    const std::size_t line = at + 2;
    const std::size_t colon = head.find(':', line);
    if (colon == std::string::npos || Lower(head.substr(line, colon - line)) != name) continue;
    values.emplace_back(Trim(std::string_view(head).substr(colon + 1, head.find("\r\n", colon) - colon - 1)));
  }
  return values;
}

}  // namespace

GetServer::GetServer(zmq::context_t& context, std::string path, Page page)
    : socket_(context, zmq::socket_type::stream), path_(std::move(path)), page_(std::move(page)) {
  socket_.set(zmq::sockopt::linger, 0);
}

bool GetServer::Listen(const std::string& host, int port, std::string* err) {
  const std::string bound = BindableHost(host);
  const bool v6 = bound.find(':') != std::string::npos;
  const std::string wanted = (v6 ? "[" + bound + "]" : bound) + ":" + std::to_string(port);
  try {
    socket_.set(zmq::sockopt::ipv6, v6 ? 1 : 0);
    socket_.bind("tcp://" + wanted);
    std::string endpoint = socket_.get(zmq::sockopt::last_endpoint);
    const std::string scheme = "tcp://";
    address_ = endpoint.compare(0, scheme.size(), scheme) == 0 ? endpoint.substr(scheme.size()) : endpoint;
  } catch (const zmq::error_t& e) {
    *err = "cannot listen on " + wanted + ": " + e.what();
    return false;
  }
  names_ = ServerNames(host);
  return true;
}

std::string GetServer::Answer(const std::string& request) const {
  const std::size_t end = request.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (request.size() >= kMaxRequestBytes) return Plain(431, "Request Header Fields Too Large", "request too large");
    return "";
  }
  const std::size_t line_end = request.find("\r\n");
  const std::string line = request.substr(0, line_end);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.compare(sp2 + 1, 5, "HTTP/") != 0)
    return Plain(400, "Bad Request", "malformed request line");
  const std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  const std::vector<std::string> hosts = HeaderValues(request.substr(0, end), "host");
  if (hosts.size() != 1) return Plain(400, "Bad Request", "one Host header, please");
  if (!NamesServer(hosts[0], names_))
    return Plain(421, "Misdirected Request", "this server does not answer to " + hosts[0]);
  if (target != path_) return Plain(404, "Not Found", "only " + path_ + " is served here");
  if (method != "GET" && method != "HEAD")
    return Plain(405, "Method Not Allowed", "only GET and HEAD", "Allow: GET, HEAD\r\n");
  return Status(200, "OK", "", page_.content_type, page_.body(), method == "HEAD");
}

void GetServer::Send(const std::string& id, const std::string& data) {
  // When the id frame does not go (EAGAIN, not thrown: the connection is
  // closing), neither may the data frame: the socket would take it for the
  // next message's id, and every message after it would be one frame off,
  // none answered again.
  try {
    if (!socket_.send(zmq::buffer(id), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) return;
    (void)socket_.send(zmq::buffer(data), zmq::send_flags::dontwait);
  } catch (const zmq::error_t&) {
    // EHOSTUNREACH: the peer went away meanwhile, nothing to answer.
  }
}

void GetServer::Close(const std::string& id, Clock::time_point now) {
  open_.erase(id);
  closed_[id] = now;
  Send(id, "");  // an empty frame closes a STREAM connection
}

void GetServer::Serve(Clock::time_point now) {
  for (int i = 0; i < 256; ++i) {
    zmq::message_t id_frame, data_frame;
    if (!socket_.recv(id_frame, zmq::recv_flags::dontwait)) return;
    if (!id_frame.more() || !socket_.recv(data_frame, zmq::recv_flags::dontwait)) continue;
    const std::string id = id_frame.to_string();
    const auto it = open_.find(id);
    if (data_frame.size() == 0) {  // a connection opened, or closed by the peer
      if (it != open_.end()) {
        open_.erase(it);
      } else if (closed_.erase(id) == 0) {  // not the peer's close of one closed here
        if (open_.size() >= kMaxConnections) {
          const auto oldest = std::min_element(open_.begin(), open_.end(), [](const auto& a, const auto& b) {
            return a.second.opened < b.second.opened;
          });
          const std::string idle = oldest->first;  // Close erases the key
          Close(idle, now);
        }
        open_[id].opened = now;
      }
      continue;
    }
    if (it == open_.end()) continue;  // answered already, or refused
    std::string& request = it->second.request;
    request.append(static_cast<const char*>(data_frame.data()),
                   std::min(data_frame.size(), kMaxRequestBytes - std::min(request.size(), kMaxRequestBytes)));
    const std::string answer = Answer(request);
    if (answer.empty()) continue;
    Send(id, answer);
    Close(id, now);
  }
}

void GetServer::Sweep(Clock::time_point now) {
  std::erase_if(closed_, [&](const auto& closed) { return now - closed.second >= kRequestTimeout; });
  std::vector<std::string> late;
  for (const auto& [id, connection] : open_)
    if (now - connection.opened >= kRequestTimeout) late.push_back(id);
  for (const std::string& id : late) Close(id, now);
}

}  // namespace fiber::http
