// fiber::Manager: a job-backed process holding shared state for the run,
// as multiprocessing's managers do. It is started by a backend of the run (so
// it may live on another machine) and serves calls on the objects it holds
// one at a time, in the order they reach it; several managers serve in
// parallel. Calls go to the manager's own endpoint in one hop, from the
// master as from a worker; a caller that cannot reach it goes through the
// run's master. A manager that dies makes its pending and later calls
// fail with WorkerLost at once.
//   fiber::Manager m;
//   auto scores = m.dict<std::string, double>();   // fiber::Dict
//   auto env = m.make<CartPole>(seed);             // fiber::RemoteObject
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fiber/errors.hpp"
#include "fiber/process.hpp"
#include "fiber/remote_object.hpp"

namespace fiber::detail {

/// The object behind a Dict: encoded keys to encoded values (api/manager.cpp).
class DictStore {
 public:
  void set(std::string key, std::string value);
  std::optional<std::string> get(std::string key) const;
  void update(std::vector<std::pair<std::string, std::string>> items);
  std::vector<std::string> keys() const;
  bool erase(std::string key);
  bool contains(std::string key) const;
  std::uint64_t size() const;

 private:
  std::map<std::string, std::string> items_;
};

}  // namespace fiber::detail

namespace fiber {

/// A dictionary held by a manager, usable from every process of the run;
/// copyable, and passed to a Process or a Pool task as an ordinary argument.
template <class K, class V>
class Dict {
 public:
  Dict() = default;
  explicit Dict(RemoteObject<detail::DictStore> store) : store_(std::move(store)) {}

  void set(const K& key, const V& value) {
    store_.call(&detail::DictStore::set, detail::to_bytes(key), detail::to_bytes(value)).get();
  }
  /// Throws KeyError when the key is absent.
  V get(const K& key) {
    std::optional<std::string> value = store_.call(&detail::DictStore::get, detail::to_bytes(key)).get();
    if (!value) throw KeyError("Dict::get: no such key");
    return detail::from_bytes<V>(*value);
  }
  V get(const K& key, const V& fallback) {
    std::optional<std::string> value = store_.call(&detail::DictStore::get, detail::to_bytes(key)).get();
    return value ? detail::from_bytes<V>(*value) : fallback;
  }
  void update(const std::vector<std::pair<K, V>>& items) {
    std::vector<std::pair<std::string, std::string>> encoded;
    for (const auto& [k, v] : items) encoded.emplace_back(detail::to_bytes(k), detail::to_bytes(v));
    store_.call(&detail::DictStore::update, std::move(encoded)).get();
  }
  /// In no particular order.
  std::vector<K> keys() {
    std::vector<K> out;
    for (const std::string& k : store_.call(&detail::DictStore::keys).get())
      out.push_back(detail::from_bytes<K>(k));
    return out;
  }
  /// True when the key was there.
  bool erase(const K& key) { return store_.call(&detail::DictStore::erase, detail::to_bytes(key)).get(); }
  bool contains(const K& key) {
    return store_.call(&detail::DictStore::contains, detail::to_bytes(key)).get();
  }
  std::size_t size() { return static_cast<std::size_t>(store_.call(&detail::DictStore::size).get()); }

  template <class Archive>
  void serialize(Archive& ar) {
    ar(store_);
  }

 private:
  RemoteObject<detail::DictStore> store_;
};

/// Movable, not copyable: destroying it (or shutdown) ends the manager
/// process, and calls on its objects then fail.
class Manager {
 public:
  Manager();
  explicit Manager(ProcessOptions options);
  ~Manager();
  Manager(Manager&&) noexcept;
  Manager& operator=(Manager&&) noexcept;

  template <class K, class V>
  Dict<K, V> dict() {
    return Dict<K, V>(make<detail::DictStore>());
  }

  /// Builds a T from args inside the manager (T registered with FIBER_CLASS).
  template <class T, class... Args>
  RemoteObject<T> make(Args&&... args) {
    if constexpr (!std::is_constructible_v<T, std::decay_t<Args>...>) {
      static_assert(detail::kNever<T>,
                    "fiber: Manager::make<T>(args...) builds T(args...) in the manager from "
                    "copies of args: T needs a constructor taking these argument types");
      return {};
    } else {
      using Made = detail::ConstructorOf<T, std::decay_t<Args>...>;
      (void)Made::registered;
      return RemoteObject<T>(make_object(
          detail::constructor_name(typeid(T), Made::args_type(), "Manager::make"),
          detail::to_bytes(std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...))));
    }
  }

  /// Ends the manager process now.
  void shutdown();

 private:
  detail::ObjectRef make_object(const std::string& constructor, std::string args);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace fiber
