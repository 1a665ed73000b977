// The process-wide table of FIBER_TASK functions: by address for the master
// (which function did the user pass?) and by name for the worker. Names
// carry where the function was registered (registered_names.hpp).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "os/mutex.hpp"
#include "worker/registered_names.hpp"
#include "os/demangle.hpp"
#include "fiber/errors.hpp"
#include "fiber/task.hpp"

namespace fiber::detail {

namespace {

struct TaskFunctions {
  os::Mutex mu;
  RegisteredNames names FIBER_GUARDED_BY(mu);
  std::vector<Invokers> invokers FIBER_GUARDED_BY(mu);  // by the names' index
  std::unordered_map<FunctionKey, std::size_t> by_key FIBER_GUARDED_BY(mu);
};

// Built on first use: FIBER_TASK runs during static initialisation, in any
// order across files.
TaskFunctions& tasks() {
  static TaskFunctions* r = new TaskFunctions;
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

bool register_task(FunctionKey key, const char* name, const char* file, int line,
                   Invokers invokers) {
  TaskFunctions& r = tasks();
  os::MutexLock lock(r.mu);
  const std::size_t index = r.names.Add(name, file, line);
  if (index == r.invokers.size()) r.invokers.push_back(invokers);
  r.by_key.emplace(key, index);
  return true;
}

const std::string& task_name(FunctionKey key, const char* where) {
  TaskFunctions& r = tasks();
  os::MutexLock lock(r.mu);
  auto it = r.by_key.find(key);
  if (it == r.by_key.end()) {
    const std::string fn = describe(key);
    throw NotRegistered(std::string(where) + ": function " + fn +
                        " is not registered as a task; add FIBER_TASK(" +
                        (fn[0] == '(' ? std::string("fn") : fn) +
                        ") at namespace scope after its definition");
  }
  return r.names.Name(it->second);
}

Invokers find_invokers(const std::string& name) {
  TaskFunctions& r = tasks();
  os::MutexLock lock(r.mu);
  std::size_t index = 0;
  return r.names.Find(name, &index) ? r.invokers[index] : Invokers{};
}

}  // namespace fiber::detail
