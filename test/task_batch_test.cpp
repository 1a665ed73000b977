// TASK and RESULT bodies (wire/task_batch.hpp): several tasks or results to
// a message, and what a decoder refuses before it trusts a count: one that
// claims more entries than the bytes left could hold, and (RESULT) a result
// its reader does not agree to, before its outcomes are read.
#include <doctest/doctest.h>

#include "wire/limits.hpp"
#include "wire/message.hpp"
#include "wire/task_batch.hpp"

using namespace fiber::wire;

namespace {

zmq::message_t bytes(const std::string& s) { return zmq::message_t(s.data(), s.size()); }

ResultUse KeepAll(std::uint64_t, std::uint32_t, std::string*) { return ResultUse::kKeep; }

}  // namespace

TEST_CASE("tasks and results travel several to a message") {
  Writer tasks(Type::kTask);
  AppendTask(tasks, 7, "square", TaskForm::kCalls, {"a", "bb"});
  AppendTask(tasks, 8, "add", TaskForm::kChunk, {std::string(5 << 20, 'x')});
  const auto m = tasks.Finish();
  std::vector<TaskView> read;
  std::string err;
  REQUIRE(ReadTasks(m, &read, &err));
  REQUIRE(read.size() == 2);
  CHECK(read[0].id == 7);
  CHECK(read[0].function == "square");
  CHECK(read[0].form == TaskForm::kCalls);
  CHECK(read[0].calls == std::vector<std::string_view>{"a", "bb"});
  CHECK(read[1].form == TaskForm::kChunk);
  CHECK(read[1].calls[0].size() == (5u << 20));

  Writer results(Type::kResult);
  results.U32(12);
  AppendResultHead(results, 7, 2);
  AppendOutcome(results, {OutcomeKind::kValue, "A", {}});
  AppendOutcome(results, {OutcomeKind::kRaised, {}, {"std::invalid_argument", "bad"}});
  const auto r = results.Finish();
  std::uint32_t credit = 0;
  std::vector<ResultView> outs;
  REQUIRE(ReadResults(r, &credit, &outs, &err, KeepAll));
  CHECK(credit == 12);
  REQUIRE(outs.size() == 1);
  CHECK(outs[0].id == 7);
  REQUIRE(outs[0].outcomes.size() == 2);
  CHECK(outs[0].outcomes[0].value == "A");
  CHECK(outs[0].outcomes[1].kind == OutcomeKind::kRaised);
  CHECK(outs[0].outcomes[1].raised.type == "std::invalid_argument");
  CHECK(outs[0].outcomes[1].raised.message == "bad");
}

TEST_CASE("a task batch that lies about its counts is refused, not trusted") {
  std::string err;
  std::vector<TaskView> tasks;
  // Claims four billion calls and holds one.
  CHECK_FALSE(ReadTasks(
      Writer(Type::kTask).U64(1).Bytes("f").U8(0).U32(0xffffffffu).Bytes("x").Finish(), &tasks,
      &err));
  CHECK(err.find("task 1") != std::string::npos);
  // A form this version does not know is refused, not run as something else.
  CHECK_FALSE(ReadTasks(Writer(Type::kTask).U64(2).Bytes("f").U8(2).U32(1).Bytes("x").Finish(),
                        &tasks, &err));
  CHECK(err.find("task 2 of unknown form 2") != std::string::npos);
  CHECK_FALSE(ReadTasks(Writer(Type::kTask).U64(1).Finish(), &tasks, &err));
  std::uint32_t credit;
  std::vector<ResultView> results;
  CHECK_FALSE(ReadResults(Writer(Type::kResult).Finish(), &credit, &results, &err, KeepAll));
  CHECK(err == "a RESULT message without a credit");
  CHECK_FALSE(ReadResults(Writer(Type::kResult).U32(1).U64(3).U32(2).U8(0).Bytes("ok").Finish(),
                          &credit, &results, &err, KeepAll));
  CHECK(err.find("outcomes of task 3") != std::string::npos);
  CHECK_FALSE(ReadResults(Writer(Type::kResult).U32(1).U64(3).U32(1).U8(9).Bytes("x").Finish(),
                          &credit, &results, &err, KeepAll));
  CHECK(err.find("unknown kind 9") != std::string::npos);
  CHECK_FALSE(ReadResults(Writer(Type::kResult).U32(kMaxCredit + 1).Finish(), &credit, &results, &err, KeepAll));
  CHECK(err.find("credit of 257") != std::string::npos);
}

TEST_CASE("a count claiming more entries than its bytes hold is refused before anything is kept for them") {
  std::string err;
  std::vector<TaskView> tasks;
  CHECK_FALSE(ReadTasks(Writer(Type::kTask).U64(4).Bytes("f").U8(0).U32(1u << 31).Bytes("x").Finish(),
                        &tasks, &err));
  CHECK(err == "a TASK message claiming 2147483648 calls of task 4 in 5 bytes");
  std::uint32_t credit = 0;
  std::vector<ResultView> results;
  int asked = 0;
  const auto count = [&](std::uint64_t, std::uint32_t, std::string*) {
    ++asked;
    return ResultUse::kKeep;
  };
  CHECK_FALSE(ReadResults(Writer(Type::kResult).U32(1).U64(9).U32(1u << 31).U8(0).Bytes("").Finish(),
                          &credit, &results, &err, count));
  CHECK(err == "a RESULT message claiming 2147483648 outcomes of task 9 in 5 bytes");
  CHECK(asked == 0);  // the reader was not even asked
  CHECK(results.empty());
}

TEST_CASE("a RESULT's reader agrees to each result before its outcomes are read") {
  // Task 5 claims three outcomes, the first of a kind nobody knows: a
  // reader that reads outcomes first would name that fault.
  Writer w(Type::kResult);
  w.U32(1);
  AppendResultHead(w, 4, 1);
  AppendOutcome(w, {OutcomeKind::kValue, "four", {}});
  AppendResultHead(w, 5, 3);
  w.U8(9).Bytes("?").U8(0).Bytes("").U8(0).Bytes("");
  const auto message = w.Finish();
  std::vector<std::pair<std::uint64_t, std::uint32_t>> asked;
  const auto refuse_5 = [&](std::uint64_t id, std::uint32_t outcomes, std::string* why) {
    asked.emplace_back(id, outcomes);
    if (id != 5) return ResultUse::kKeep;
    *why = "a result for task 5, which it does not hold";
    return ResultUse::kRefuse;
  };
  std::uint32_t credit = 0;
  std::vector<ResultView> results;
  std::string err;
  CHECK_FALSE(ReadResults(message, &credit, &results, &err, refuse_5));
  CHECK(err == "a result for task 5, which it does not hold");
  CHECK(asked == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{4, 1}, {5, 3}});

  // A result skipped keeps no outcome, but its outcomes are still checked.
  const auto skip_4 = [](std::uint64_t id, std::uint32_t, std::string*) {
    return id == 4 ? ResultUse::kSkip : ResultUse::kKeep;
  };
  Writer ok(Type::kResult);
  ok.U32(1);
  AppendResultHead(ok, 4, 1);
  AppendOutcome(ok, {OutcomeKind::kValue, "four", {}});
  AppendResultHead(ok, 6, 1);
  AppendOutcome(ok, {OutcomeKind::kValue, "six", {}});
  const auto read = ok.Finish();  // the views point into it
  REQUIRE(ReadResults(read, &credit, &results, &err, skip_4));
  REQUIRE(results.size() == 2);
  CHECK(results[0].id == 4);
  CHECK(results[0].outcomes.empty());
  CHECK(results[1].outcomes.at(0).value == "six");
  CHECK_FALSE(ReadResults(message, &credit, &results, &err, skip_4));
  CHECK(err.find("unknown kind 9") != std::string::npos);
}

TEST_CASE("TASK and RESULT decoders refuse a frame of another type or with no header") {
  std::string err;
  std::vector<TaskView> tasks;
  CHECK_FALSE(ReadTasks(Writer(Type::kResult).U32(1).Finish(), &tasks, &err));
  CHECK(err == "a RESULT where TASK was expected");
  CHECK_FALSE(ReadTasks(bytes("XYZW0123456789"), &tasks, &err));
  std::uint32_t credit = 0;
  std::vector<ResultView> results;
  CHECK_FALSE(ReadResults(Writer(Type::kTask).U32(1).Finish(), &credit, &results, &err, KeepAll));
  CHECK(err == "a TASK where RESULT was expected");
}
