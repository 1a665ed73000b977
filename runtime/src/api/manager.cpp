// A Manager is a pool of one job-backed worker that is never replaced (as a
// Process is, process.cpp): the objects it holds live in that worker's
// memory, and every call on them is a task of two built-in functions,
// fiber_manager_make and fiber_manager_call. The worker runs its tasks one
// at a time in the order they were dealt, which is what orders the calls on
// one object; the master's pool service already reports a lost worker to
// every pending call and breaks the pool for later ones. Calls reach the
// manager's pool through the run's master (a REQUEST of kind kManagerCall,
// master/request_service.cpp) from the master itself, and from a worker
// that cannot reach the manager's own endpoint; other workers call that
// endpoint in one hop (worker/direct_calls.hpp, client/direct_link.hpp).
#include "fiber/manager.hpp"

#include <map>
#include <typeindex>

#include "api/init_state.hpp"
#include "os/mutex.hpp"
#include "worker/registered_names.hpp"
#include "client/run_client.hpp"
#include "os/demangle.hpp"
#include "master/pool_handle.hpp"
#include "master/run.hpp"
#include "worker/serve_loop.hpp"
#include "worker/this_worker.hpp"

namespace fiber::detail {

namespace {

struct ClassEntry {
  std::size_t name = 0;  // index in ClassRegistry::names
  std::vector<MethodEntry> methods;
};

// Filled during static initialisation (FIBER_CLASS, ConstructorOf), in any
// order across files; read by the master at call sites and by managers.
// Classes go by their registered names, not typeid names: two classes of
// one name in unnamed namespaces of two files share a typeid name.
struct ClassRegistry {
  os::Mutex mu;
  RegisteredNames names FIBER_GUARDED_BY(mu);
  std::map<std::type_index, ClassEntry> classes FIBER_GUARDED_BY(mu);
  std::map<std::size_t, std::type_index> by_name FIBER_GUARDED_BY(mu);
  std::map<std::pair<std::type_index, std::string>, Constructor> constructors FIBER_GUARDED_BY(mu);
};

ClassRegistry& classes() {
  static ClassRegistry* r = new ClassRegistry;
  return *r;
}

// "&CartPole::reset, &CartPole::step" -> {"CartPole::reset", "CartPole::step"}.
std::vector<std::string> SplitMethodList(const std::string& list) {
  std::vector<std::string> names;
  std::string name;
  for (char c : list + ",") {
    if (c == ',') {
      names.push_back(name);
      name.clear();
    } else if (c != '&' && c != ' ' && c != '\t' && c != '\n') {
      name += c;
    }
  }
  return names;
}

// The objects this process holds as a manager.
struct HeldObject {
  std::shared_ptr<void> object;
  const ClassEntry* cls = nullptr;
};
os::Mutex held_mu;
std::map<std::uint64_t, HeldObject> held FIBER_GUARDED_BY(held_mu);
std::uint64_t next_object FIBER_GUARDED_BY(held_mu) = 1;

}  // namespace

bool register_class(std::type_index type, const char* name, const char* file, int line,
                    const char* method_list, std::vector<MethodEntry> methods) {
  const std::vector<std::string> names = SplitMethodList(method_list);
  for (std::size_t i = 0; i < methods.size(); ++i)
    methods[i].name = names.size() == methods.size() ? names[i]
                                                     : std::string(name) + "#" + std::to_string(i);
  ClassRegistry& r = classes();
  os::MutexLock lock(r.mu);
  ClassEntry& entry = r.classes[type];
  entry.name = r.names.Add(name, file, line);
  entry.methods = std::move(methods);
  r.by_name.insert_or_assign(entry.name, type);
  return true;
}

bool register_constructor(std::type_index type, const char* args_type, Constructor constructor) {
  ClassRegistry& r = classes();
  os::MutexLock lock(r.mu);
  r.constructors.emplace(std::pair(type, std::string(args_type)), constructor);
  return true;
}

std::string constructor_name(std::type_index type, const char* args_type, const char* where) {
  // Typeid names hold no '/', so the last one ends the class's name.
  return class_name(type, where) + "/" + args_type;
}

const std::string& class_name(std::type_index type, const char* where) {
  ClassRegistry& r = classes();
  os::MutexLock lock(r.mu);
  auto it = r.classes.find(type);
  if (it == r.classes.end()) {
    const std::string name = Demangle(type.name());
    throw NotRegistered(std::string(where) + ": class " + name +
                        " is not registered; add FIBER_CLASS(" + name +
                        ", &" + name + "::method, ...) at namespace scope");
  }
  return r.names.Name(it->second.name);
}

const std::vector<MethodEntry>& class_methods(std::type_index type) {
  class_name(type, "RemoteObject::call");
  ClassRegistry& r = classes();
  os::MutexLock lock(r.mu);
  return r.classes.at(type).methods;
}

void throw_method_not_registered(std::type_index type, const char* where) {
  const std::string name = class_name(type, where);
  throw NotRegistered(std::string(where) + ": this method of " + name +
                      " is not registered; list it in FIBER_CLASS(" + name + ", ...)");
}

std::string fiber_manager_call(std::uint64_t object, std::string method, std::string args);

// The built-in tasks a manager runs. Making an object also opens the
// manager's own endpoint (once), which the object's handles carry.
std::pair<std::uint64_t, std::string> fiber_manager_make(std::string constructor, std::string args) {
  Constructor make = nullptr;
  const ClassEntry* cls = nullptr;
  {
    ClassRegistry& r = classes();
    os::MutexLock lock(r.mu);
    const auto slash = constructor.rfind('/');
    std::size_t name = 0;
    if (slash != std::string::npos && r.names.Find(constructor.substr(0, slash), &name)) {
      const std::type_index type = r.by_name.at(name);
      auto c = r.constructors.find(std::pair(type, constructor.substr(slash + 1)));
      if (c != r.constructors.end()) make = c->second;
      cls = &r.classes.at(type);
    }
  }
  if (!make || !cls)
    throw NotRegistered("this manager has no constructor " + constructor +
                        "; are the master and the manager the same build?");
  std::shared_ptr<void> object = make(args);
  os::MutexLock lock(held_mu);
  const std::uint64_t id = next_object++;
  held[id] = {std::move(object), cls};
  return {id, worker::ServeDirectCalls(task_name(key_of(&fiber_manager_call), "Manager"))};
}
FIBER_TASK(fiber_manager_make);

std::string fiber_manager_call(std::uint64_t object, std::string method, std::string args) {
  HeldObject target;
  {
    os::MutexLock lock(held_mu);
    auto it = held.find(object);
    if (it == held.end())
      throw Error("this manager holds no object " + std::to_string(object) +
                  "; a handle works only with the manager that made it");
    target = it->second;
  }
  for (const MethodEntry& m : target.cls->methods)
    if (m.name == method) return m.invoke(target.object.get(), args);
  std::string cls;
  {
    ClassRegistry& r = classes();
    os::MutexLock lock(r.mu);
    cls = RegisteredAs(r.names.Name(target.cls->name));
  }
  throw NotRegistered("class " + cls + " has no remote method " + method);
}
FIBER_TASK(fiber_manager_call);

namespace {

// Sends a call of fn (a built-in task) to the manager, at endpoint in one
// hop when it has one; the batch's one slot gets its outcome.
template <class Fn, class... Args>
std::shared_ptr<Batch> CallManager(const std::string& run_id, std::uint32_t manager,
                                   const std::string& endpoint, Fn fn, const char* where,
                                   Args&&... args) {
  client::RunClient& c = client::RunClient::Get();
  if (run_id != c.run_id())
    throw Error(std::string(where) + ": this object belongs to run " + run_id +
                ", not to this process's run " + c.run_id() +
                "; a handle works only within the run that made it");
  wire::Request request;
  request.op = wire::Op::kManagerCall;
  request.object = manager;
  request.body = wire::EncodePair(task_name(key_of(fn), where),
                                  encode_args(fn, std::forward<Args>(args)...));
  auto batch = std::make_shared<Batch>(1);
  if (!endpoint.empty()) batch->set_before_wait([&c] { c.FlushManagerCalls(); });
  c.SendToManager(endpoint, std::move(request), [batch](wire::Reply reply) {
    batch->complete(0, {client::OutcomeOf(reply)});
  });
  return batch;
}

}  // namespace

std::shared_ptr<Batch> call_method(const ObjectRef& ref, const std::string& method,
                                   std::string args, const char* where) {
  if (ref.run_id.empty()) throw Error(std::string(where) + ": this handle names no object");
  return CallManager(ref.run_id, ref.manager, ref.endpoint, &fiber_manager_call, where, ref.object,
                     method, std::move(args));
}

// The dictionary a Dict stands for.
void DictStore::set(std::string key, std::string value) { items_[std::move(key)] = std::move(value); }
std::optional<std::string> DictStore::get(std::string key) const {
  auto it = items_.find(key);
  if (it == items_.end()) return std::nullopt;
  return it->second;
}
void DictStore::update(std::vector<std::pair<std::string, std::string>> items) {
  for (auto& [k, v] : items) items_[std::move(k)] = std::move(v);
}
std::vector<std::string> DictStore::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : items_) out.push_back(k);
  return out;
}
bool DictStore::erase(std::string key) { return items_.erase(key) > 0; }
bool DictStore::contains(std::string key) const { return items_.count(key) > 0; }
std::uint64_t DictStore::size() const { return items_.size(); }

FIBER_CLASS(DictStore, &DictStore::set, &DictStore::get, &DictStore::update, &DictStore::keys,
            &DictStore::erase, &DictStore::contains, &DictStore::size);

}  // namespace fiber::detail

namespace fiber {

struct Manager::State {
  std::string run_id;
  std::uint32_t channel = 0;
  std::unique_ptr<master::PoolHandle> handle;

  ~State() { End(); }
  // Ends the manager process; this process's later calls to it go through
  // the master, which answers that it has ended, not to its own endpoint,
  // where it may still answer while it stops.
  void End() {
    if (!handle) return;
    client::RunClient::Get().ManagerEnded(channel);
    handle.reset();
  }
};

Manager::Manager() : Manager(ProcessOptions{}) {}

Manager::Manager(ProcessOptions options) : state_(std::make_unique<State>()) {
  detail::RequireMaster("a Manager");
  PoolOptions pool;
  pool.processes = 1;
  pool.max_task_retries = 0;
  pool.backend = options.backend;
  pool.resources = options.resources;
  master::Run& run = master::Run::Get();
  state_->run_id = run.id();
  state_->handle = std::make_unique<master::PoolHandle>(
      run, pool, [](master::PoolService::Options* o) {
        o->replace_lost_workers = false;
        o->manager_functions = {detail::task_name(detail::key_of(&detail::fiber_manager_make), "Manager"),
                                detail::task_name(detail::key_of(&detail::fiber_manager_call), "Manager")};
      });
  state_->channel = state_->handle->channel();
}

Manager::~Manager() = default;  // its state ends the manager process
Manager::Manager(Manager&&) noexcept = default;
Manager& Manager::operator=(Manager&&) noexcept = default;

void Manager::shutdown() { state_->End(); }

detail::ObjectRef Manager::make_object(const std::string& constructor, std::string args) {
  if (!state_ || !state_->handle) throw Error("Manager::make: the manager has shut down");
  auto batch = detail::CallManager(state_->run_id, state_->channel, {}, &detail::fiber_manager_make,
                                   "Manager::make", constructor, std::move(args));
  batch->wait_all();
  auto [object, endpoint] = detail::decode<std::pair<std::uint64_t, std::string>>(batch->at(0));
  return {state_->run_id, state_->channel, object, std::move(endpoint)};
}

}  // namespace fiber
