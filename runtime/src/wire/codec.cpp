#include "wire/codec.hpp"

#include "wire/limits.hpp"

namespace fiber::wire {

namespace {

bool CreditInRange(std::uint32_t n) { return n >= 1 && n <= kMaxCredit; }

}  // namespace

zmq::message_t Encode(const Hello& m) { return Writer(Type::kHello).U64(m.pid).Finish(); }

zmq::message_t Encode(const Welcome& m) {
  return Writer(Type::kWelcome)
      .U32(m.channel)
      .U32(m.prefetch)
      .U8(m.results_at_once ? 1 : 0)
      .Bytes(m.init_function)
      .Bytes(m.init_args)
      .Finish();
}

zmq::message_t Encode(const Refuse& m, std::uint8_t version) {
  return Writer(Type::kRefuse, kRunChannel, version).Rest(m.reason).Finish();
}

zmq::message_t Encode(const Ready& m, Channel channel) {
  return Writer(Type::kReady, channel).U32(m.credit).Finish();
}

zmq::message_t Encode(const InitFailed& m, Channel channel) {
  return Writer(Type::kInitFailed, channel).Bytes(m.error.type).Bytes(m.error.message).Finish();
}

zmq::message_t Encode(const Revoke& m, Channel channel) {
  Writer w(Type::kRevoke, channel);
  for (std::uint64_t id : m.ids) w.U64(id);
  return w.Finish();
}

zmq::message_t EncodeControl(Type type, Channel channel) { return Writer(type, channel).Finish(); }

bool Decode(const zmq::message_t& message, Hello* m, std::string* err) {
  if (!ExpectType(message, Type::kHello, err)) return false;
  Reader r(message);
  if (!r.U64(&m->pid) || !r.AtEnd()) return Malformed(Type::kHello, err);
  return true;
}

bool Decode(const zmq::message_t& message, Welcome* m, std::string* err) {
  if (!ExpectType(message, Type::kWelcome, err)) return false;
  Reader r(message);
  std::uint8_t at_once = 0;
  if (!r.U32(&m->channel) || !r.U32(&m->prefetch) || !r.U8(&at_once) ||
      !r.Bytes(&m->init_function) || !r.Bytes(&m->init_args) || !r.AtEnd() ||
      m->channel == kRunChannel || !CreditInRange(m->prefetch) || at_once > 1)
    return Malformed(Type::kWelcome, err);
  m->results_at_once = at_once == 1;
  return true;
}

bool Decode(const zmq::message_t& message, Refuse* m, std::string* err) {
  if (!ExpectType(message, Type::kRefuse, err)) return false;
  Reader r(message);
  m->reason = r.Rest();
  return true;
}

bool Decode(const zmq::message_t& message, Ready* m, std::string* err) {
  if (!ExpectType(message, Type::kReady, err)) return false;
  Reader r(message);
  if (!r.U32(&m->credit) || !r.AtEnd() || !CreditInRange(m->credit))
    return Malformed(Type::kReady, err);
  return true;
}

bool Decode(const zmq::message_t& message, InitFailed* m, std::string* err) {
  if (!ExpectType(message, Type::kInitFailed, err)) return false;
  Reader r(message);
  if (!r.Bytes(&m->error.type) || !r.Bytes(&m->error.message) || !r.AtEnd())
    return Malformed(Type::kInitFailed, err);
  return true;
}

bool Decode(const zmq::message_t& message, Revoke* m, std::string* err) {
  if (!ExpectType(message, Type::kRevoke, err)) return false;
  Reader r(message);
  m->ids.clear();
  while (!r.AtEnd()) {
    std::uint64_t id = 0;
    if (!r.U64(&id)) return Malformed(Type::kRevoke, err);
    m->ids.push_back(id);
  }
  return true;
}

}  // namespace fiber::wire
