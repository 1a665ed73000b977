#include "master/held_items.hpp"

#include <algorithm>
#include <utility>

namespace fiber::master {

template <class Give>
void HeldItems::Consume(std::size_t n, Give give) {
  while (n > 0) {
    Run& run = runs_.front();
    const std::size_t k = std::min(n, run.items);
    run.items -= k;
    n -= k;
    if (run.items == 0) {
      give(std::move(run.block), k);
      runs_.pop_front();
    } else {
      give(static_cast<const Block&>(run.block), k);
    }
  }
}

void HeldItems::Extend(Block block, std::size_t n) {
  if (!runs_.empty() && runs_.back().block == block)
    runs_.back().items += n;
  else
    runs_.push_back(Run{std::move(block), n});
}

void HeldItems::Append(Block block, const std::vector<std::string_view>& items) {
  if (items.empty()) return;
  views_.insert(views_.end(), items.begin(), items.end());
  Extend(std::move(block), items.size());
}

template <class Views>
std::size_t HeldItems::Cut(std::size_t n, Views* views) {
  n = std::min(n, views_.size());
  const auto end = views_.begin() + static_cast<std::ptrdiff_t>(n);
  if (views) views->insert(views->end(), views_.begin(), end);
  views_.erase(views_.begin(), end);
  return n;
}

void HeldItems::MoveTo(HeldItems* to, std::size_t n) {
  Consume(Cut(n, &to->views_), [to](auto&& block, std::size_t k) {
    to->Extend(std::forward<decltype(block)>(block), k);
  });
}

void HeldItems::Take(std::size_t n, std::vector<std::string_view>* views, std::vector<Block>* blocks) {
  Consume(Cut(n, views), [blocks](auto&& block, std::size_t) {
    blocks->push_back(std::forward<decltype(block)>(block));
  });
}

void HeldItems::Drop(std::size_t n) {
  Consume(Cut<decltype(views_)>(n, nullptr), [](auto&&, std::size_t) {});
}

}  // namespace fiber::master
