// A queue's held items (master/held_items.hpp): items come out in the
// order they went in, across blocks, and a block is let go exactly when
// the last of its items is taken, dropped or moved on and let go there;
// items taken keep their blocks while read.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "master/held_items.hpp"

using fiber::master::HeldItems;

namespace {

// A block of bytes "a,b,c" and views of its comma-separated items.
struct TestBlock {
  std::shared_ptr<const std::string> bytes;
  std::vector<std::string_view> items;
  explicit TestBlock(std::string text) : bytes(std::make_shared<const std::string>(std::move(text))) {
    std::string_view all = *bytes;
    for (std::size_t at = 0; at <= all.size();) {
      std::size_t end = all.find(',', at);
      if (end == std::string_view::npos) end = all.size();
      items.push_back(all.substr(at, end - at));
      at = end + 1;
    }
  }
};

std::string Joined(const std::vector<std::string_view>& views) {
  std::string out;
  for (std::string_view v : views) out += std::string(v) + " ";
  return out;
}

}  // namespace

TEST_CASE("items come out in order across blocks, each block let go with its last item") {
  TestBlock one("a,b,c"), two("d,e");
  std::weak_ptr<const std::string> first = one.bytes, second = two.bytes;
  HeldItems held;
  held.Append(std::move(one.bytes), one.items);
  held.Append(std::move(two.bytes), two.items);
  REQUIRE(held.size() == 5);
  CHECK(held.front() == "a");
  CHECK(held[3] == "d");

  std::vector<std::string_view> views;
  std::vector<HeldItems::Block> blocks;
  held.Take(2, &views, &blocks);
  CHECK(Joined(views) == "a b ");
  REQUIRE(blocks.size() == 1);
  blocks.clear();
  CHECK_FALSE(first.expired());  // "c" is still held

  held.Drop(1);
  CHECK(first.expired());
  CHECK_FALSE(second.expired());

  views.clear();
  held.Take(10, &views, &blocks);  // only what there is
  CHECK(Joined(views) == "d e ");
  CHECK(held.empty());
  CHECK_FALSE(second.expired());  // kept while its items are read
  blocks.clear();
  CHECK(second.expired());
}

TEST_CASE("items moved on keep their block in their new place, in order behind what is there") {
  TestBlock one("a,b,c"), two("x");
  std::weak_ptr<const std::string> first = one.bytes;
  HeldItems waiting, queue;
  queue.Append(std::move(two.bytes), two.items);
  waiting.Append(std::move(one.bytes), one.items);
  waiting.MoveTo(&queue, 2);
  CHECK(waiting.size() == 1);
  CHECK(queue.size() == 3);
  waiting.MoveTo(&queue, 5);
  CHECK(waiting.empty());
  std::vector<std::string_view> views;
  std::vector<HeldItems::Block> blocks;
  queue.Take(4, &views, &blocks);
  CHECK(Joined(views) == "x a b c ");
  CHECK(blocks.size() == 2);  // the moved parts joined one run again
  blocks.clear();
  CHECK(first.expired());
}
