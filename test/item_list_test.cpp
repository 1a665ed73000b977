// The list of REQUEST and REPLY bodies (wire/item_list.hpp): measured and
// read in place, and refused, not misread, when a length runs past the end
// or it holds more items than its reader agreed to.
#include "wire/item_list.hpp"

#include <doctest/doctest.h>

using namespace fiber::wire;

TEST_CASE("a list round-trips its items, empty ones too, in order") {
  const std::string list = EncodeList({"a", "", "bcd"});
  std::vector<std::string_view> items;  // views into list
  REQUIRE(DecodeList(list, &items));
  CHECK(items == std::vector<std::string_view>{"a", "", "bcd"});
  std::string appended;
  AppendToList(&appended, "id", "body");
  REQUIRE(DecodeList(appended, &items));
  CHECK(items == std::vector<std::string_view>{"idbody"});
}

TEST_CASE("a list is measured without keeping its items: how many, their bytes, the largest") {
  ListShape shape;
  REQUIRE(MeasureList(EncodeList({"", "abc", "", "de"}), &shape));
  CHECK(shape.items == 4);
  CHECK(shape.bytes == 5);
  CHECK(shape.largest == 3);
  CHECK_FALSE(MeasureList(std::string("\5\0\0\0abcd", 8), &shape));  // a length past the end
  REQUIRE(MeasureList("", &shape));
  CHECK(shape.items == 0);
}

TEST_CASE("a list of more items than its reader agreed to is refused before more views are kept") {
  const std::string list = EncodeList(std::vector<std::string_view>(1000));
  std::vector<std::string_view> items;
  CHECK_FALSE(DecodeList(list, &items, 10));
  CHECK(items.size() == 10);
  REQUIRE(DecodeList(list, &items, 1000));
  CHECK(items.size() == 1000);
}
