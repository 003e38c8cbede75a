// The scenes' kernels run a thread per body (or pair) in blocks of kThreads.
#pragma once

#include <cstddef>

namespace rsw::scenes::detail {

inline constexpr unsigned int kThreads = 256;

/// Blocks of kThreads that cover `count` items.
inline unsigned int blocks_for(std::size_t count) {
  return static_cast<unsigned int>((count + kThreads - 1) / kThreads);
}

}  // namespace rsw::scenes::detail
