// Checks of the arguments that the broad phase, bounds and bodies take alike: arrays of one
// length, object counts that 32-bit indices reach, pairs that name existing bodies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "rsw/physics/aabb.hpp"

namespace rsw::physics::detail {

/// Objects are indexed with 32 bits, and this index stands for none.
inline constexpr std::uint32_t kNoIndex = 0xFFFFFFFFu;

/// Throws rsw::Error(InvalidArgument) unless every entry of `sizes` equals `count` and
/// `count` boxes can be indexed with 32 bits. `what` names the arrays in the message.
void check_sizes(std::size_t count, std::initializer_list<std::size_t> sizes, const char* what);

/// Throws rsw::Error(InvalidArgument) naming the first pair with an index past `bodies`.
void check_pairs(std::size_t bodies, std::span<const Pair> pairs);

}  // namespace rsw::physics::detail
