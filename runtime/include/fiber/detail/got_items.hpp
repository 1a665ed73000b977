// Items a queue get took, handed from the run's client to the queue that
// decodes them: views into bytes that stay where they were read.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

namespace fiber::detail {

/// Items a get took, to decode: views into bytes that keep holds (an
/// answer's body, or in the master the items' own place).
struct GotItems {
  std::shared_ptr<const void> keep;
  std::vector<std::string_view> items;
};

}  // namespace fiber::detail
