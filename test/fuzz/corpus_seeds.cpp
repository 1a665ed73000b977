// Writes the seed corpus of every fuzz target into the directory given
// (test/fuzz/corpus): a few valid inputs and a few edge ones each, made with
// the encoders the runtime uses. Run it again when a layout changes; files
// added by hand (crashes found) are left alone.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "payload_types.hpp"
#include "wire/codec.hpp"
#include "wire/message.hpp"
#include "wire/request.hpp"
#include "wire/task_batch.hpp"

using namespace fiber;
using fiber::detail::to_bytes;
using wire::Type;
using wire::Writer;

namespace {

std::filesystem::path root;

void Seed(const std::string& target, const std::string& name, std::string_view bytes) {
  std::filesystem::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void Frame(const std::string& target, const std::string& name, const Writer& w) {
  const zmq::message_t frame = w.Finish();
  Seed(target, name, {static_cast<const char*>(frame.data()), frame.size()});
}

/// A payload input: the type's byte, then bytes (by default, value's encoding).
template <class T>
void Payload(const std::string& name, const T& value, std::string bytes = {}) {
  if (bytes.empty()) bytes = to_bytes(value);
  Seed("payload", name, fuzz::TypeByte<T>() + bytes);
}

void WireSeeds() {
  Frame("header", "heartbeat", Writer(Type::kHeartbeat));
  Frame("header", "refuse_with_reason", Writer(Type::kRefuse).Rest("no room"));
  Frame("header", "ready_on_channel_5", Writer(Type::kReady, 5).U32(1));
  Frame("header", "hello_of_version_1", Writer(Type::kHello, wire::kRunChannel, 1).U64(7));
  Seed("header", "wrong_magic", "G\x02\x07");
  Seed("header", "unknown_type", "F\x02\x63");
  Seed("header", "two_bytes", "F\x02");

  Frame("hello", "pid", Writer(Type::kHello).U64(4242));
  Frame("hello", "short", Writer(Type::kHello).U32(4242));
  Frame("hello", "trailing_byte", Writer(Type::kHello).U64(4242).U8(0));

  Frame("ready", "credit_64", Writer(Type::kReady, 3).U32(64));
  Frame("ready", "credit_0", Writer(Type::kReady, 3).U32(0));
  Frame("ready", "short", Writer(Type::kReady, 3).U8(1));
  Frame("ready", "trailing_byte", Writer(Type::kReady, 3).U32(1).U8(0));

  Frame("init_failed", "raised", Writer(Type::kInitFailed, 3).Bytes("std::runtime_error").Bytes("no seed"));
  Frame("init_failed", "type_only", Writer(Type::kInitFailed, 3).Bytes("std::runtime_error"));
  Frame("welcome", "initializer", Writer(Type::kWelcome).U32(3).U32(8).U8(0).Bytes("init_seed").Bytes(to_bytes(std::tuple<int>(7))));
  Frame("welcome", "no_initializer", Writer(Type::kWelcome).U32(3).U32(1).U8(1).Bytes("").Bytes(""));
  Frame("welcome", "lying_length", Writer(Type::kWelcome).U32(3).U32(1).U8(0).U32(1000).Rest("abc"));
  Frame("welcome", "trailing_byte", Writer(Type::kWelcome).U32(3).U32(1).U8(0).Bytes("").Bytes("").U8(0));
  Frame("welcome", "results_at_once_2", Writer(Type::kWelcome).U32(3).U32(1).U8(2).Bytes("").Bytes(""));
  Frame("revoke", "two_ids", Writer(Type::kRevoke, 3).U64(4).U64(9));
  Frame("revoke", "none", Writer(Type::kRevoke, 3));
  Frame("revoke", "short_id", Writer(Type::kRevoke, 3).U64(4).U32(9));

  Frame("request", "put", Writer(Type::kRequest).U64(1).U8(2).U64(3).U32(0xFFFFFFFF).Rest("item"));
  Frame("request", "get_timeout", Writer(Type::kRequest).U64(2).U8(3).U64(3).U32(250));
  Frame("request", "manager_call", Writer(Type::kRequest).U64(3).U8(7).U64(2).U32(0xFFFFFFFF).Rest(wire::EncodePair("fiber_manager_call", "args")));
  Frame("request", "op_0", Writer(Type::kRequest).U64(4).U8(0).U64(0).U32(0));
  Frame("request", "short", Writer(Type::kRequest).U64(5).U8(2));
  Frame("reply", "ok", Writer(Type::kReply).U64(1).U8(0).Rest("item"));
  Frame("reply", "raised", Writer(Type::kReply).U64(2).U8(4).Rest(wire::EncodePair("std::invalid_argument", "no")));
  Frame("reply", "lying_pair", Writer(Type::kReply).U64(3).U8(4).U32(1000).Rest("ab"));
  Frame("reply", "status_9", Writer(Type::kReply).U64(4).U8(9));

  Writer tasks(Type::kTask, 3);
  wire::AppendTask(tasks, 1, "square", wire::TaskForm::kCalls,
                   {to_bytes(std::tuple<int>(3)), to_bytes(std::tuple<int>(4))});
  wire::AppendTask(tasks, 2, "greet", wire::TaskForm::kCalls,
                   {to_bytes(std::tuple<std::string>("ada"))});
  Frame("task", "two_tasks", tasks);
  Writer no_calls(Type::kTask, 3);
  wire::AppendTask(no_calls, 9, "do_nothing", wire::TaskForm::kCalls, {});
  Frame("task", "no_calls", no_calls);
  Frame("task", "empty", Writer(Type::kTask, 3));
  Writer chunk(Type::kTask, 3);
  wire::AppendTask(chunk, 4, "square", wire::TaskForm::kChunk,
                   {to_bytes(std::vector<std::tuple<int>>{{3}, {4}, {5}})});
  Frame("task", "chunk", chunk);
  Frame("task", "form_9", Writer(Type::kTask, 3).U64(1).Bytes("f").U8(9).U32(0));
  Frame("task", "lying_call_length", Writer(Type::kTask, 3).U64(1).Bytes("f").U8(0).U32(1).U32(1u << 30).Rest("ab"));
  Frame("task", "ends_in_header", Writer(Type::kTask, 3).U64(1).U32(5));

  Writer results(Type::kResult, 3);
  results.U32(16);
  wire::AppendResultHead(results, 1, 2);
  const std::string value = to_bytes(49);
  wire::AppendOutcome(results, {wire::OutcomeKind::kValue, value, {}});
  wire::AppendOutcome(results, {wire::OutcomeKind::kRaised, {}, {"std::runtime_error", "boom"}});
  Frame("result", "two_outcomes", results);
  Frame("result", "unknown_kind", Writer(Type::kResult, 3).U32(1).U64(1).U32(1).U8(7).Bytes("x"));
  Frame("result", "credit_only", Writer(Type::kResult, 3).U32(1));
  Frame("result", "lying_length", Writer(Type::kResult, 3).U32(1).U64(1).U32(1).U8(0).U32(1u << 30));
  Frame("result", "ends_in_head", Writer(Type::kResult, 3).U32(1).U64(1));
}

void PayloadSeeds() {
  Payload("bool", true);
  Payload("bool_2", false, "\x02");
  Payload("optional_string", std::optional<std::string>("hi"));
  Payload("optional_flag_128", std::optional<std::string>(), "\x80");
  Payload("vector_bool", std::vector<bool>{true, false, true});
  Payload("vector_bool_7", std::vector<bool>(), to_bytes(std::uint64_t{2}) + "\x01\x07");
  Payload("tuple", std::tuple<int, bool, std::tuple<>>(5, true, {}));
  Payload("tuple_bool_255", std::tuple<int, bool, std::tuple<>>(), to_bytes(5) + "\xff");
  Payload("nested_vectors", std::vector<std::vector<std::string>>{{"a", "bc"}, {}, {""}});
  Payload("map", std::map<std::string, std::vector<int>>{{"a", {1}}, {"b", {}}});
  Payload("map_key_twice", std::map<std::string, std::vector<int>>(),
          to_bytes(std::uint64_t{2}) + to_bytes(std::string("b")) + to_bytes(std::vector<int>{1}) +
              to_bytes(std::string("b")) + to_bytes(std::vector<int>{2}));
  Payload("unordered_map", std::unordered_map<int, std::optional<bool>>{{1, true}, {2, std::nullopt}});
  Payload("empties", std::vector<std::array<std::tuple<>, 1 << 20>>(1));
  Payload("empties_4096_promised", std::vector<std::array<std::tuple<>, 1 << 20>>(),
          to_bytes(std::uint64_t{4096}) + std::string(4096, '\0'));
  Payload("records", std::vector<std::optional<fuzz::Record>>{
                         fuzz::Record{"r", {1, -2}, true, {true, false, true}, {{}, {}}}, std::nullopt});
  Payload("tree", Tree{{Tree{}, Tree{{Tree{}}}}});
  Payload("string", std::string("a\0b", 3));
  Payload("string_longer_than_its_bytes", std::string(), to_bytes(std::uint64_t{100}) + "abc");
  Payload("ints", std::vector<std::int32_t>{7, -2});
  Payload("ints_cut_short", std::vector<std::int32_t>(), to_bytes(std::uint64_t{2}) + std::string(6, '\1'));
  std::string too_deep;
  for (int i = 0; i <= detail::InputArchive::kMaxNesting; ++i) too_deep += to_bytes(std::uint64_t{1});
  Payload("tree_too_deep", Tree(), too_deep + to_bytes(std::uint64_t{0}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: corpus_seeds DIR (test/fuzz/corpus)\n";
    return 2;
  }
  root = argv[1];
  WireSeeds();
  PayloadSeeds();
  return 0;
}
