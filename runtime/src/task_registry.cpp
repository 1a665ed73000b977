// The process-wide table of FIBER_TASK functions: by address for the master
// (which function did the user pass?) and by name for the worker.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "demangle.hpp"
#include "fiber/errors.hpp"
#include "fiber/task.hpp"

namespace fiber::detail {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<FunctionKey, std::string> names;
  std::unordered_map<std::string, Invokers> invokers;
};

// Built on first use: FIBER_TASK runs during static initialisation, in any
// order across files.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// The function's name as the dynamic symbol table knows it (executables
// linked with -rdynamic), else its address.
std::string describe(FunctionKey key) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(key), &info) && info.dli_sname) {
    const std::string name = Demangle(info.dli_sname);
    const auto paren = name.find('(');
    return paren == std::string::npos ? name : name.substr(0, paren);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "at %#lx", static_cast<unsigned long>(key));
  return std::string("(function ") + buf + ")";
}

}  // namespace

bool register_task(FunctionKey key, const char* name, Invokers invokers) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.names.emplace(key, name);
  r.invokers.emplace(name, invokers);
  return true;
}

const std::string& task_name(FunctionKey key, const char* where) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.names.find(key);
  if (it == r.names.end()) {
    const std::string fn = describe(key);
    throw NotRegistered(std::string(where) + ": function " + fn +
                        " is not registered as a task; add FIBER_TASK(" +
                        (fn[0] == '(' ? std::string("fn") : fn) +
                        ") at namespace scope after its definition");
  }
  return it->second;
}

Invokers find_invokers(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.invokers.find(name);
  return it == r.invokers.end() ? Invokers{} : it->second;
}

}  // namespace fiber::detail
