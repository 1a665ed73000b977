// The list in REQUEST and REPLY bodies (a queue's put_many and get_many, a
// manager's batch of calls and their answers): each item a u32 length and
// its bytes, back to back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fiber::wire {

std::string EncodeList(const std::vector<std::string_view>& items);
/// Appends one item of a list to body.
void AppendToList(std::string* body, std::string_view item);
/// Appends one item made of head and rest (a batched call's id and body).
void AppendToList(std::string* body, std::string_view head, std::string_view rest);
/// What a list holds, measured without keeping its items: how many, their
/// bytes, the largest.
struct ListShape {
  std::size_t items = 0, bytes = 0, largest = 0;
};
/// False when body is not a list: a length runs past its end.
[[nodiscard]] bool MeasureList(std::string_view body, ListShape* shape);
/// The items as views into body (which must outlive them); false when a
/// length runs past its end, or at an item past the most, before its view
/// is kept (so a list of many empty items costs no more views than its
/// reader agreed to).
[[nodiscard]] bool DecodeList(std::string_view body, std::vector<std::string_view>* items,
                              std::size_t most = SIZE_MAX);

}  // namespace fiber::wire
