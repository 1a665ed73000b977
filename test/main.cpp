// Entry point of every test executable. Pool tests start workers by running
// the test executable again, so fiber::init must come before doctest. Also
// keeps the name of the test case running, for FIBER_SKIP's line.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <fiber/fiber.hpp>
#include <string>

#include "support/skip.hpp"

namespace {

std::string running_case;

// A listener, not a reporter: it only notes which case starts.
struct CaseNames : doctest::IReporter {
  explicit CaseNames(const doctest::ContextOptions&) {}
  void test_case_start(const doctest::TestCaseData& data) override { running_case = data.m_name; }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("case_names", 1, CaseNames);

}  // namespace

void fiber::testing::Skipped(const std::string& why) {
  std::printf("fiber-test skipped: %s: %s\n", running_case.c_str(), why.c_str());
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  doctest::Context context(argc, argv);
  return context.run();
}
