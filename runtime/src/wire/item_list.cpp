#include "wire/item_list.hpp"

#include <algorithm>
#include <cstring>

namespace fiber::wire {

namespace {

// Calls each(item) for the items of a list in order; false, having
// stopped, at a length that runs past body's end or once each is false.
template <class Each>
bool ForEachItem(std::string_view body, Each each) {
  std::size_t at = 0;
  while (at < body.size()) {
    std::uint32_t n = 0;
    if (body.size() - at < sizeof n) return false;
    std::memcpy(&n, body.data() + at, sizeof n);
    at += sizeof n;
    if (body.size() - at < n || !each(body.substr(at, n))) return false;
    at += n;
  }
  return true;
}

}  // namespace

void AppendToList(std::string* body, std::string_view head, std::string_view rest) {
  const auto n = static_cast<std::uint32_t>(head.size() + rest.size());
  body->append(reinterpret_cast<const char*>(&n), sizeof n);
  body->append(head);
  body->append(rest);
}

void AppendToList(std::string* body, std::string_view item) { AppendToList(body, {}, item); }

std::string EncodeList(const std::vector<std::string_view>& items) {
  std::size_t size = 0;
  for (std::string_view item : items) size += sizeof(std::uint32_t) + item.size();
  std::string out;
  out.reserve(size);
  for (std::string_view item : items) AppendToList(&out, item);
  return out;
}

bool MeasureList(std::string_view body, ListShape* shape) {
  *shape = {};
  return ForEachItem(body, [shape](std::string_view item) {
    ++shape->items;
    shape->bytes += item.size();
    shape->largest = std::max(shape->largest, item.size());
    return true;
  });
}

bool DecodeList(std::string_view body, std::vector<std::string_view>* items, std::size_t most) {
  items->clear();
  return ForEachItem(body, [items, most](std::string_view item) {
    if (items->size() == most) return false;
    items->push_back(item);
    return true;
  });
}

}  // namespace fiber::wire
