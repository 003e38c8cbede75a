// Axis-aligned bounding boxes and the pairs the broad phase reports.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <span>

namespace rsw::physics {

/// A point in 3-D space, in the caller's units (the library assumes none).
struct Vec3 {
  /// Coordinates along the x, y and z axes.
  ///@{
  float x = 0;
  float y = 0;
  float z = 0;
  ///@}
};

/// A box [min, max] on each axis. Boxes that touch overlap (closed intervals).
struct Aabb {
  Vec3 min;  ///< the lower bound on each axis
  Vec3 max;  ///< the upper bound on each axis, >= min for a valid box
};

/// A ray: the points origin + t * direction for t in [0, max_t]. The direction need not be of
/// unit length (t is in its units) and may have zero components; max_t may be infinite.
///
/// A ray meets a box by the slab test in float32: on each axis a where direction.a != 0,
/// t1 = (box.min.a - origin.a) / direction.a and t2 = (box.max.a - origin.a) / direction.a
/// bound the slab [min(t1, t2), max(t1, t2)]; where direction.a == 0 (either sign), the ray
/// is in the slab for every t if box.min.a <= origin.a <= box.max.a and in it for none
/// otherwise. The ray enters the box at t = the largest of 0 and the slabs' starts, and
/// meets it when that is <= the smallest of max_t and the slabs' ends. So boxes are closed: a
/// ray that starts inside a box, or on its face, enters it at t = 0; one that runs along a
/// face or an edge meets the box; one that only touches a corner meets it at that t.
struct Ray {
  Vec3 origin;     ///< where the ray starts (t = 0)
  Vec3 direction;  ///< the ray's step per unit of t; a zero vector meets what holds origin
  float max_t = std::numeric_limits<float>::infinity();  ///< the ray's end, >= 0
};

/// Two overlapping boxes by index, a < b.
struct Pair {
  std::uint32_t a = 0;  ///< the lower box index
  std::uint32_t b = 0;  ///< the higher box index
  /// Orders pairs by a, then b.
  friend constexpr auto operator<=>(const Pair&, const Pair&) = default;
};

/// Boxes as structure-of-arrays on the host: six arrays of equal length.
struct AabbArrays {
  /// Box i's minimum and maximum on each axis are element i of these arrays.
  ///@{
  std::span<const float> min_x;
  std::span<const float> min_y;
  std::span<const float> min_z;
  std::span<const float> max_x;
  std::span<const float> max_y;
  std::span<const float> max_z;
  ///@}
};

/// The world of shared geometry: a box in it pairs with the boxes of every world, and with
/// other boxes in it.
inline constexpr std::uint32_t kAllWorlds = 0xFFFFFFFFu;
/// The largest world id a box may carry, besides kAllWorlds.
inline constexpr std::uint32_t kMaxWorld = (1u << 24) - 1;

/// Which boxes a region query reports (World::query, BroadPhase::query).
struct QueryOptions {
  std::uint32_t mask = 0xFFFFFFFFu;  ///< boxes whose category & mask != 0
  std::uint32_t world = kAllWorlds;  ///< every world's boxes; or one world's, and the
                                     ///< kAllWorlds ones
};

/// Which boxes a ray query reports (World::raycast, BroadPhase::raycast).
struct RaycastOptions {
  bool all_hits = false;             ///< every box along each ray, not only the nearest
  std::uint32_t mask = 0xFFFFFFFFu;  ///< boxes whose category & mask != 0
  std::uint32_t world = kAllWorlds;  ///< every world's boxes; or one world's, and the
                                     ///< kAllWorlds ones
};

/// Collision filtering: boxes a and b may pair only if (category_a & mask_b) != 0 and
/// (category_b & mask_a) != 0. Every box defaults to category 1 and mask 0xFFFFFFFF.
/// Worlds: boxes of two different worlds never pair (kAllWorlds pairs with every world), so
/// that many independent copies of a scene can share one frame; filter bits still apply
/// within a world. Every box defaults to world 0. Fastest on the GPU when each world's boxes
/// lie together in the arrays with ids rising from world to world (kAllWorlds boxes anywhere)
/// and worlds hold up to a few hundred boxes: each world is then sorted and swept on its own.
struct FilterArrays {
  std::span<const std::uint32_t> categories;  ///< one per box; empty: every box in category 1
  std::span<const std::uint32_t> masks;       ///< one per box; empty: every mask 0xFFFFFFFF
  std::span<const std::uint32_t> worlds;      ///< one per box (at most kMaxWorld, or
                                              ///< kAllWorlds); empty: every box in world 0
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

/// True when boxes of worlds a and b may pair: the same world, or one of them kAllWorlds.
constexpr bool worlds_meet(std::uint32_t world_a, std::uint32_t world_b) noexcept {
  return world_a == world_b || world_a == kAllWorlds || world_b == kAllWorlds;
}

/// True for a world id a box may carry: at most kMaxWorld, or kAllWorlds.
constexpr bool is_world(std::uint32_t world) noexcept {
  return world <= kMaxWorld || world == kAllWorlds;
}

}  // namespace rsw::physics
