#include "wire/request.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "wire/limits.hpp"

namespace fiber::wire {

namespace {

constexpr std::uint32_t kNoTimeout = 0xFFFFFFFF;

std::string_view BytesOf(const std::uint64_t& n) {
  return {reinterpret_cast<const char*>(&n), sizeof n};
}

}  // namespace

// REQUEST: id u64, op u8, object u64, timeout u32 (ms; all ones: none), body rest.
zmq::message_t Encode(const Request& m) {
  return Writer(Type::kRequest)
      .U64(m.id)
      .U8(static_cast<std::uint8_t>(m.op))
      .U64(m.object)
      .U32(m.timeout_ms ? std::min(*m.timeout_ms, kNoTimeout - 1) : kNoTimeout)
      .Rest(m.body)
      .Finish();
}

// REPLY: id u64, status u8, body rest.
zmq::message_t EncodeReply(std::uint64_t id, Status status, std::string_view body) {
  return Writer(Type::kReply).U64(id).U8(static_cast<std::uint8_t>(status)).Rest(body).Finish();
}

zmq::message_t Encode(const Reply& m) { return EncodeReply(m.id, m.status, m.body); }

bool Decode(const zmq::message_t& message, Request* m, std::string* err) {
  if (!ExpectType(message, Type::kRequest, err)) return false;
  Reader r(message);
  std::uint8_t op = 0;
  std::uint32_t timeout = 0;
  if (!r.U64(&m->id) || !r.U8(&op) || !r.U64(&m->object) || !r.U32(&timeout) || op < 1 ||
      op > kLastOp)
    return Malformed(Type::kRequest, err);
  m->op = static_cast<Op>(op);
  m->timeout_ms.reset();
  if (timeout != kNoTimeout) m->timeout_ms = timeout;
  m->body = std::string(r.Rest());
  return true;
}

bool Decode(const zmq::message_t& message, Reply* m, std::string* err) {
  if (!ExpectType(message, Type::kReply, err)) return false;
  Reader r(message);
  std::uint8_t status = 0;
  if (!r.U64(&m->id) || !r.U8(&status) || status > kLastStatus)
    return Malformed(Type::kReply, err);
  m->status = static_cast<Status>(status);
  m->body = std::string(r.Rest());
  return true;
}

std::string EncodeU64(std::uint64_t n) {
  return std::string(reinterpret_cast<const char*>(&n), sizeof n);
}

bool DecodeU64(const std::string& body, std::uint64_t* n) {
  if (body.size() != sizeof *n) return false;
  std::memcpy(n, body.data(), sizeof *n);
  return true;
}

std::string Encode(const SharedPlace& place) {
  std::string body;
  for (std::uint64_t n : {place.id, place.pid, place.fd, place.key}) body += EncodeU64(n);
  return body;
}

bool Decode(const std::string& body, SharedPlace* place) {
  if (body.size() != 4 * sizeof(std::uint64_t)) return false;
  std::uint64_t* fields[] = {&place->id, &place->pid, &place->fd, &place->key};
  for (std::size_t i = 0; i < 4; ++i)
    std::memcpy(fields[i], body.data() + i * sizeof(std::uint64_t), sizeof(std::uint64_t));
  return true;
}

std::string SharedMemoryName(std::uint64_t key, std::uint64_t id) {
  char name[64];
  std::snprintf(name, sizeof name, "fiber-share-%016llx-%llu", static_cast<unsigned long long>(key),
                static_cast<unsigned long long>(id));
  return name;
}

std::string EncodeClaim(std::uint64_t token, bool hold) {
  return EncodeU64(token) + std::string(1, hold ? '\1' : '\0');
}

bool DecodeClaim(const std::string& body, std::uint64_t* token, bool* hold) {
  if (body.size() != sizeof *token + 1 || static_cast<unsigned char>(body.back()) > 1) return false;
  std::memcpy(token, body.data(), sizeof *token);
  *hold = body.back() == '\1';
  return true;
}

std::string EncodeCalls(const std::vector<const Request*>& calls) {
  std::string out;
  for (const Request* call : calls) AppendToList(&out, BytesOf(call->id), call->body);
  return out;
}

bool DecodeCalls(std::string_view body, std::vector<CallView>* calls) {
  calls->clear();
  std::vector<std::string_view> items;
  if (!DecodeList(body, &items, kMaxCallsInFlight)) return false;
  calls->reserve(items.size());
  for (std::string_view item : items) {
    CallView& call = calls->emplace_back();
    if (item.size() < sizeof call.id) return false;
    std::memcpy(&call.id, item.data(), sizeof call.id);
    call.body = item.substr(sizeof call.id);
  }
  return true;
}

void AppendReply(std::string* body, std::uint64_t id, Status status, std::string_view reply) {
  char head[sizeof id + 1];
  std::memcpy(head, &id, sizeof id);
  head[sizeof id] = static_cast<char>(status);
  AppendToList(body, {head, sizeof head}, reply);
}

bool DecodeReplies(std::string_view body, std::vector<Reply>* replies) {
  replies->clear();
  std::vector<std::string_view> items;
  if (!DecodeList(body, &items, kMaxCallsInFlight)) return false;
  replies->reserve(items.size());
  for (std::string_view item : items) {
    Reply& reply = replies->emplace_back();
    if (item.size() < sizeof reply.id + 1 ||
        static_cast<std::uint8_t>(item[sizeof reply.id]) > kLastStatus)
      return false;
    std::memcpy(&reply.id, item.data(), sizeof reply.id);
    reply.status = static_cast<Status>(item[sizeof reply.id]);
    reply.body = std::string(item.substr(sizeof reply.id + 1));
  }
  return true;
}

// Two byte strings: a u32 length and the first, then the second to the end.
std::string EncodePair(const std::string& first, const std::string& second) {
  const auto n = static_cast<std::uint32_t>(first.size());
  std::string out(reinterpret_cast<const char*>(&n), sizeof n);
  out += first;
  out += second;
  return out;
}

bool DecodePair(std::string_view body, std::string* first, std::string* second) {
  std::uint32_t n = 0;
  if (body.size() < sizeof n) return false;
  std::memcpy(&n, body.data(), sizeof n);
  if (body.size() - sizeof n < n) return false;
  *first = body.substr(sizeof n, n);
  *second = body.substr(sizeof n + n);
  return true;
}

// SEMAPHORE_NEW's body: value u32, bound u32 (all ones: none), owned u8 (0 or 1).
std::string Encode(const SemaphoreSpec& spec) {
  std::string out(9, '\0');
  std::memcpy(out.data(), &spec.value, 4);
  std::memcpy(out.data() + 4, &spec.bound, 4);
  out[8] = spec.owned ? 1 : 0;
  return out;
}

bool Decode(const std::string& body, SemaphoreSpec* spec) {
  if (body.size() != 9 || static_cast<unsigned char>(body[8]) > 1) return false;
  std::memcpy(&spec->value, body.data(), 4);
  std::memcpy(&spec->bound, body.data() + 4, 4);
  spec->owned = body[8] == 1;
  return spec->value <= spec->bound;
}

}  // namespace fiber::wire
