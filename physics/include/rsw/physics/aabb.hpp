// Axis-aligned bounding boxes and the pairs the broad phase reports.
#pragma once

#include <compare>
#include <cstdint>
#include <span>

namespace rsw::physics {

struct Vec3 {
  float x = 0;
  float y = 0;
  float z = 0;
};

/// A box [min, max] on each axis. Boxes that touch overlap (closed intervals).
struct Aabb {
  Vec3 min;
  Vec3 max;
};

/// Two overlapping boxes by index, a < b.
struct Pair {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  friend constexpr auto operator<=>(const Pair&, const Pair&) = default;
};

/// Boxes as structure-of-arrays on the host: six arrays of equal length.
struct AabbArrays {
  std::span<const float> min_x;
  std::span<const float> min_y;
  std::span<const float> min_z;
  std::span<const float> max_x;
  std::span<const float> max_y;
  std::span<const float> max_z;
};

/// Collision filtering: boxes a and b may pair only if (category_a & mask_b) != 0 and
/// (category_b & mask_a) != 0. Every box defaults to category 1 and mask 0xFFFFFFFF.
struct FilterArrays {
  std::span<const std::uint32_t> categories;
  std::span<const std::uint32_t> masks;
};

/// True when the closed boxes overlap on every axis.
constexpr bool overlaps(const Aabb& a, const Aabb& b) noexcept {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y &&
         a.min.z <= b.max.z && b.min.z <= a.max.z;
}

/// True when the filter bits let a and b pair.
constexpr bool filters_pass(std::uint32_t category_a, std::uint32_t mask_a,
                            std::uint32_t category_b, std::uint32_t mask_b) noexcept {
  return (category_a & mask_b) != 0 && (category_b & mask_a) != 0;
}

}  // namespace rsw::physics
