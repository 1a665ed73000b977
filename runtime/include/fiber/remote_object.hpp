// Remote objects: an instance of a registered class living in a manager
// process (fiber/manager.hpp), called by method from any process of the
// run. A C++ object cannot travel, so the class and the methods callable
// remotely are registered by name, as tasks are:
//   FIBER_CLASS(CartPole, &CartPole::reset, &CartPole::step);
//   auto env = manager.make<CartPole>(seed);          // built in the manager
//   State s = env.call(&CartPole::step, 1).get();     // AsyncResult<State>
// Calls on one object run in the order they were made. A worker's calls go
// to the manager directly, the master's path its fallback (PROTOCOL.md,
// "Calls in one hop").
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "fiber/async_result.hpp"
#include "fiber/serialize.hpp"
#include "fiber/task.hpp"

namespace fiber::detail {

/// Runs one method on an object: decodes the arguments, encodes the result.
using MethodInvoker = std::function<std::string(void* object, std::string_view args)>;
using Constructor = std::shared_ptr<void> (*)(std::string_view args);

struct MethodEntry {
  std::string name;  // "CartPole::step"
  std::any pointer;  // the member function pointer, to find it by value
  MethodInvoker invoke;
};

/// Adds a class, registered as name at file:line, and its remote methods;
/// method_list is FIBER_CLASS's list as written ("&CartPole::reset,
/// &CartPole::step"), which names them.
bool register_class(std::type_index type, const char* name, const char* file, int line,
                    const char* method_list, std::vector<MethodEntry> methods);
/// Adds a constructor of type from the argument tuple whose typeid name is
/// args_type.
bool register_constructor(std::type_index type, const char* args_type, Constructor constructor);
/// What the master asks a manager to build: the class's registered name and
/// args_type; throws NotRegistered as class_name does.
std::string constructor_name(std::type_index type, const char* args_type, const char* where);
/// The class's registered name; throws NotRegistered (naming the class and
/// where) for a class without FIBER_CLASS.
const std::string& class_name(std::type_index type, const char* where);
/// The methods registered for type (class_name checks it is registered).
const std::vector<MethodEntry>& class_methods(std::type_index type);
/// Throws NotRegistered naming a method missing from FIBER_CLASS.
[[noreturn]] void throw_method_not_registered(std::type_index type, const char* where);

// Self is T, or const T for a const method.
template <class Self, class R, class... A, class M>
MethodEntry method_entry_for(M method) {
  return {{}, std::any(method), [method](void* object, std::string_view bytes) -> std::string {
            auto args = from_bytes<std::tuple<std::decay_t<A>...>>(bytes);
            Self& self = *static_cast<Self*>(object);
            auto call = [&](auto&&... a) { return (self.*method)(std::move(a)...); };
            if constexpr (std::is_void_v<R>) {
              std::apply(call, std::move(args));
              return {};
            } else {
              return to_bytes(std::apply(call, std::move(args)));
            }
          }};
}
template <class T, class R, class... A>
MethodEntry method_entry(R (T::*method)(A...)) {
  return method_entry_for<T, R, A...>(method);
}
template <class T, class R, class... A>
MethodEntry method_entry(R (T::*method)(A...) const) {
  return method_entry_for<const T, R, A...>(method);
}

template <class T, class... M>
bool register_class_methods(const char* name, const char* file, int line,
                            const char* method_list, M... methods) {
  std::vector<MethodEntry> entries;
  (entries.push_back(method_entry<T>(methods)), ...);
  return register_class(typeid(T), name, file, line, method_list, std::move(entries));
}

/// The registered name of method, a member of T.
template <class T, class M>
const std::string& method_name(M method, const char* where) {
  for (const MethodEntry& e : class_methods(typeid(T)))
    if (const M* p = std::any_cast<M>(&e.pointer); p && *p == method) return e.name;
  throw_method_not_registered(typeid(T), where);
}

/// A constructor of T from arguments of types A, registered the first time
/// a program names it (Manager::make): the manager, the same executable,
/// has registered it too by the time it serves.
template <class T, class... A>
struct ConstructorOf {
  static const char* args_type() { return typeid(std::tuple<A...>).name(); }
  static std::shared_ptr<void> construct(std::string_view bytes) {
    auto args = from_bytes<std::tuple<A...>>(bytes);
    return std::apply([](auto&&... a) { return std::make_shared<T>(std::move(a)...); },
                      std::move(args));
  }
  static inline const bool registered = register_constructor(typeid(T), args_type(), &construct);
};

/// Which object in which manager of which run: what a handle carries.
struct ObjectRef {
  std::string run_id;
  std::uint32_t manager = 0;  // the manager's channel within the run
  std::uint64_t object = 0;
  /// The manager's own endpoint, which a caller calls in one hop; "": go
  /// through the master.
  std::string endpoint;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(run_id, manager, object, endpoint);
  }
};

/// Calls method (its registered name) on the object with encoded args; the
/// batch's one slot gets the encoded result (api/manager.cpp).
std::shared_ptr<Batch> call_method(const ObjectRef& ref, const std::string& method,
                                   std::string args, const char* where);

/// A method's result: the manager's task returned it encoded, as a string.
template <class R>
R decode_method_result(const Batch& batch) {
  return decode<R>(Outcome{Outcome::Kind::kValue, decode<std::string>(batch.at(0)), {}});
}

}  // namespace fiber::detail

namespace fiber {

/// A handle to an object in a manager; copyable, and passed to a Process or
/// a Pool task as an ordinary argument.
template <class T>
class RemoteObject {
 public:
  RemoteObject() = default;
  explicit RemoteObject(detail::ObjectRef ref) : ref_(std::move(ref)) {}

  template <class R, class... A, class... Args>
  AsyncResult<R> call(R (T::*method)(A...), Args&&... args) const {
    return invoke<R, A...>(method, std::forward<Args>(args)...);
  }
  template <class R, class... A, class... Args>
  AsyncResult<R> call(R (T::*method)(A...) const, Args&&... args) const {
    return invoke<R, A...>(method, std::forward<Args>(args)...);
  }

  const detail::ObjectRef& ref() const { return ref_; }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(ref_);
  }

 private:
  template <class R, class... A, class M, class... Args>
  AsyncResult<R> invoke(M method, Args&&... args) const {
    static_assert(sizeof...(A) == sizeof...(Args), "wrong number of arguments for this method");
    const std::string& name = detail::method_name<T>(method, "RemoteObject::call");
    std::string encoded = detail::to_bytes(std::tuple<std::decay_t<A>...>(std::forward<Args>(args)...));
    return AsyncResult<R>(detail::call_method(ref_, name, std::move(encoded), "RemoteObject::call"),
                          &detail::decode_method_result<R>);
  }
  detail::ObjectRef ref_;
};

}  // namespace fiber

/// Registers a class whose objects a Manager can hold, and the methods
/// callable on them remotely. Use at namespace scope, once per class. Its
/// name is T as written plus this file and line, as FIBER_TASK's is, so two
/// file-local classes of one name (in unnamed namespaces) stay apart.
#define FIBER_CLASS(T, ...)                                                       \
  static const bool FIBER_DETAIL_CONCAT(fiber_class_registered_, __COUNTER__) =   \
      ::fiber::detail::register_class_methods<T>(#T, __FILE__, __LINE__, #__VA_ARGS__, \
                                                 __VA_ARGS__)
