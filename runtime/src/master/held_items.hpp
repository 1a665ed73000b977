// A queue's items in order, each read in place in the block of bytes it
// came in (a put's body, an item file mapped), with each block kept while
// any of its items is held. The blocks are kept once per run of items, not
// once per item: a 1 MiB batch of small items costs no reference count per
// item. Not thread-safe (the queue table's lock guards it).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

namespace fiber::master {

class HeldItems {
 public:
  using Block = std::shared_ptr<const void>;

  bool empty() const { return views_.empty(); }
  std::size_t size() const { return views_.size(); }
  std::string_view operator[](std::size_t i) const { return views_[i]; }
  std::string_view front() const { return views_.front(); }

  /// Appends items, each a view into block.
  void Append(Block block, const std::vector<std::string_view>& items);
  /// Moves the first n items to the end of *to.
  void MoveTo(HeldItems* to, std::size_t n);
  /// Takes the first n items: their views appended to *views, and the
  /// blocks they are in to *blocks (which keeps them while read).
  void Take(std::size_t n, std::vector<std::string_view>* views, std::vector<Block>* blocks);
  /// Drops the first n items; a block none is left in is let go.
  void Drop(std::size_t n);

 private:
  struct Run {
    Block block;
    std::size_t items;  // the next this many views are in block
  };
  /// Adds n items of block's, just appended to views_, to the runs.
  void Extend(Block block, std::size_t n);
  /// Removes the first n views (those there are), appended to *views (a
  /// vector or a deque) when not null; how many.
  template <class Views>
  std::size_t Cut(std::size_t n, Views* views);
  /// Takes n items off the front runs: give(block, k) for each run they
  /// are in, the block moved out when its run is used up, else lent.
  template <class Give>
  void Consume(std::size_t n, Give give);

  std::deque<std::string_view> views_;
  std::deque<Run> runs_;
};

}  // namespace fiber::master
