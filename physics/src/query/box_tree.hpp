// The tree that answers a world's ray and region queries: a bounding-volume hierarchy over
// the proxies' boxes, built the linear way (Karras 2012, "Maximizing parallelism in the
// construction of BVHs, octrees and k-d trees"): the boxes sorted by the Morton code of their
// centres, and each internal node's range and split read from the codes' common prefixes, so
// that every node is made independently. The CPU and the GPU build it and walk it with the
// functions here, compiled for both.
//
// Exactness rests on monotony, not on tolerances: a node's bounds are the exact minimum and
// maximum of its children's, and the slab test (ray_entry) and the overlap test only ever
// grow when a box does (every operation in them rounds monotonically). So a ray or a region
// that meets a box meets every node above it, a ray enters a node no later than any box in
// it, and a walk that skips the nodes a query misses (or, for the nearest hit, enters later
// than the best hit so far) finds exactly what testing every box would.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "../broad_phase/frame_plan.hpp"
#include "rsw/engine/host_device.hpp"
#include "rsw/physics/world.hpp"

namespace rsw::physics::detail {

/// A child reference of a tree node: an internal node's index, or a leaf's with kLeafBit set.
inline constexpr std::uint32_t kLeafBit = 0x80000000u;
/// No node (the root's parent) and no slot (a ray that hit nothing).
inline constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;
/// The most references a walk holds: a node's split is a bit below its parent's in the
/// 64-bit Morton code followed by the 32-bit leaf index, so a path holds at most 96 internal
/// nodes, each leaving at most one child waiting.
inline constexpr int kTreeStack = 97;

/// A box as the tree holds it: bounds as low[axis] and high[axis].
struct TreeBounds {
  float low[3];
  float high[3];

  /// The identity of merge: holds nothing, and no ray or region meets it.
  RSW_HOST_DEVICE static TreeBounds empty() {
    const float inf = std::numeric_limits<float>::infinity();
    return {{inf, inf, inf}, {-inf, -inf, -inf}};
  }

  /// The smallest box holding this one and `other`.
  RSW_HOST_DEVICE TreeBounds merged(const TreeBounds& other) const {
    TreeBounds out;
    for (int axis = 0; axis < 3; ++axis) {
      out.low[axis] = other.low[axis] < low[axis] ? other.low[axis] : low[axis];
      out.high[axis] = other.high[axis] > high[axis] ? other.high[axis] : high[axis];
    }
    return out;
  }
};

/// A leaf: one slot's box and the category it is queried by (0: a free slot or an invalid
/// box, which nothing meets; its bounds are then empty). 32 bytes, one sector.
struct alignas(16) TreeLeaf {
  TreeBounds bounds;
  std::uint32_t slot;
  std::uint32_t category;
};

/// An internal node: both children's bounds, so that a walk decides on both from one node.
/// 64 bytes, two sectors. A leaf's bounds here are its box's: a walk reads a leaf only when
/// it meets the box.
struct alignas(16) TreeNode {
  TreeBounds child_bounds[2];
  std::uint32_t child[2];  ///< internal index, or leaf index | kLeafBit
  std::uint32_t parent;    ///< kNoNode for the root
  std::uint32_t unused;
};

static_assert(sizeof(TreeLeaf) == 32 && sizeof(TreeNode) == 64, "whole sectors");

/// A box as the tree holds it.
RSW_HOST_DEVICE inline TreeBounds bounds_of(const Aabb& box) {
  return {{box.min.x, box.min.y, box.min.z}, {box.max.x, box.max.y, box.max.z}};
}

/// Slot `slot`'s leaf: its box, queried by `category`; a box that is not valid, or category 0
/// (a free slot), gives a leaf that nothing meets (category 0, empty bounds).
RSW_HOST_DEVICE inline TreeLeaf make_leaf(const Aabb& box, std::uint32_t slot,
                                          std::uint32_t category) {
  TreeLeaf leaf;
  leaf.bounds = bounds_of(box);
  leaf.slot = slot;
  leaf.category = box_is_valid(leaf.bounds.low, leaf.bounds.high) ? category : 0u;
  if (leaf.category == 0) leaf.bounds = TreeBounds::empty();
  return leaf;
}

/// A leaf's centre as bounds (empty for a leaf nothing meets): what the Morton codes' frame
/// is the bounds of.
RSW_HOST_DEVICE inline TreeBounds centre_of(const TreeLeaf& leaf) {
  if (leaf.category == 0) return TreeBounds::empty();
  TreeBounds centre;
  for (int axis = 0; axis < 3; ++axis)
    centre.low[axis] = centre.high[axis] = (leaf.bounds.low[axis] + leaf.bounds.high[axis]) * 0.5f;
  return centre;
}

/// The Morton code of a box centre: 21 bits a coordinate, interleaved (x highest), the centre
/// placed in [low, low + 2^21 / scale) of each axis. Equal centres share a code; a slot with no
/// box takes kNoCode, after all others.
inline constexpr std::uint64_t kNoCode = ~std::uint64_t{0};

RSW_HOST_DEVICE inline std::uint64_t spread_bits(std::uint64_t v) {
  v &= 0x1FFFFF;
  v = (v | v << 32) & 0x1F00000000FFFFull;
  v = (v | v << 16) & 0x1F0000FF0000FFull;
  v = (v | v << 8) & 0x100F00F00F00F00Full;
  v = (v | v << 4) & 0x10C30C30C30C30C3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

/// Where the centres lie: the Morton codes' frame.
struct CodeFrame {
  float low[3];
  float scale[3];  ///< 2^21 over the centres' span (0 where they do not spread)
};

RSW_HOST_DEVICE inline std::uint64_t morton_code(const TreeBounds& box, const CodeFrame& frame) {
  std::uint64_t code = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const float centre = (box.low[axis] + box.high[axis]) * 0.5f;
    float q = (centre - frame.low[axis]) * frame.scale[axis];
    q = q > 0 ? q : 0;  // also a NaN from an infinite span
    const auto cell = q < 2097151.0f ? static_cast<std::uint64_t>(q) : std::uint64_t{2097151};
    code |= spread_bits(cell) << (2 - axis);
  }
  return code;
}

/// A leaf's code: its centre's Morton code, or kNoCode for a leaf nothing meets.
RSW_HOST_DEVICE inline std::uint64_t leaf_code(const TreeLeaf& leaf, const CodeFrame& frame) {
  return leaf.category == 0 ? kNoCode : morton_code(leaf.bounds, frame);
}

/// The frame of centres whose bounds (TreeBounds of the centres) are `centres`.
RSW_HOST_DEVICE inline CodeFrame code_frame(const TreeBounds& centres) {
  CodeFrame frame{};
  for (int axis = 0; axis < 3; ++axis) {
    const float span = centres.high[axis] - centres.low[axis];
    frame.low[axis] = centres.low[axis];
    frame.scale[axis] = span > 0 ? 2097152.0f / span : 0.0f;
  }
  return frame;
}

RSW_HOST_DEVICE inline int leading_zeros(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(v));
#else
  return v == 0 ? 64 : __builtin_clzll(v);
#endif
}

/// The length of the common prefix of sorted leaves i and j (their codes, then their indices,
/// so that equal codes still differ); -1 for j outside [0, count).
RSW_HOST_DEVICE inline int common_prefix(const std::uint64_t* codes, std::uint32_t count,
                                         std::int64_t i, std::int64_t j) {
  if (j < 0 || j >= static_cast<std::int64_t>(count)) return -1;
  const std::uint64_t a = codes[i];
  const std::uint64_t b = codes[j];
  if (a != b) return leading_zeros(a ^ b);
  return 64 + leading_zeros(static_cast<std::uint64_t>(i ^ j)) - 32;
}

/// Internal node i of a tree over `count` >= 2 sorted leaves: its children, found from the
/// codes alone (node 0 is the root).
RSW_HOST_DEVICE inline void node_children(const std::uint64_t* codes, std::uint32_t count,
                                          std::uint32_t node, std::uint32_t (&child)[2]) {
  const std::int64_t i = node;
  const int direction =
      common_prefix(codes, count, i, i + 1) - common_prefix(codes, count, i, i - 1) > 0 ? 1 : -1;
  // The range's other end: past every leaf sharing more than the prefix with the neighbour
  // on the other side.
  const int floor_prefix = common_prefix(codes, count, i, i - direction);
  std::int64_t reach = 2;
  while (common_prefix(codes, count, i, i + reach * direction) > floor_prefix)
    reach *= 2;
  std::int64_t length = 0;
  for (std::int64_t step = reach / 2; step >= 1; step /= 2) {
    if (common_prefix(codes, count, i, i + (length + step) * direction) > floor_prefix)
      length += step;
  }
  const std::int64_t j = i + length * direction;
  // The split: the last leaf that shares more than the range's prefix with leaf i.
  const int range_prefix = common_prefix(codes, count, i, j);
  std::int64_t split = 0;
  std::int64_t step = length;
  do {
    step = (step + 1) / 2;
    if (common_prefix(codes, count, i, i + (split + step) * direction) > range_prefix)
      split += step;
  } while (step > 1);
  const std::int64_t gamma = i + split * direction + (direction < 0 ? -1 : 0);
  const std::int64_t first = i < j ? i : j;
  const std::int64_t last = i < j ? j : i;
  child[0] = static_cast<std::uint32_t>(gamma) | (first == gamma ? kLeafBit : 0u);
  child[1] = static_cast<std::uint32_t>(gamma + 1) | (last == gamma + 1 ? kLeafBit : 0u);
}

/// A ray as the walks test it against nodes: with its direction's reciprocals, so that a node
/// costs multiplications where a box's exact test (ray_entry) costs divisions.
struct RayProbe {
  Ray ray;
  float inverse[3];  ///< 1 / direction
  bool divide[3];    ///< the reciprocal is not a normal float: divide on that axis
};

RSW_HOST_DEVICE inline RayProbe probe_of(const Ray& ray) {
  RayProbe probe{ray, {}, {}};
  const float direction[3] = {ray.direction.x, ray.direction.y, ray.direction.z};
  for (int axis = 0; axis < 3; ++axis) {
    const float inverse = direction[axis] != 0.0f ? 1.0f / direction[axis] : 0.0f;
    const float size = inverse < 0 ? -inverse : inverse;
    probe.inverse[axis] = inverse;
    probe.divide[axis] =
        !(size >= std::numeric_limits<float>::min() && size <= std::numeric_limits<float>::max());
  }
  return probe;
}

/// The slab test of a probe's ray against a box, sets `t` where the ray enters it. kExact: in
/// float32 as documented on Ray, (bound - origin) / direction. Else the node test:
/// (bound - origin) * inverse, each slab widened by 2^-21 of itself and 2^-126 on both sides.
/// The product is within 3 rounding units (2^-24) of the quotient, so the widened slab holds
/// the exact one: a ray that enters a box may enter every node above it, at or before the
/// box's t.
template <bool kExact>
RSW_HOST_DEVICE inline bool slab_entry(const RayProbe& probe, const TreeBounds& box, float& t) {
  constexpr float kWiden = 1.0f / 2097152.0f;  // 2^-21
  constexpr float kTiny = 1.1754944e-38f;      // 2^-126
  const float origin[3] = {probe.ray.origin.x, probe.ray.origin.y, probe.ray.origin.z};
  const float direction[3] = {probe.ray.direction.x, probe.ray.direction.y, probe.ray.direction.z};
  float enter = 0.0f;
  float exit = probe.ray.max_t;
  for (int axis = 0; axis < 3; ++axis) {
    const float low = box.low[axis];
    const float high = box.high[axis];
    if (!(low <= high)) return false;  // an empty box (a node over no box, a free slot)
    if (direction[axis] == 0.0f) {
      if (!(low <= origin[axis] && origin[axis] <= high)) return false;
      continue;
    }
    float t_low;
    float t_high;
    if (kExact || probe.divide[axis]) {
      t_low = (low - origin[axis]) / direction[axis];
      t_high = (high - origin[axis]) / direction[axis];
    } else {
      t_low = (low - origin[axis]) * probe.inverse[axis];
      t_high = (high - origin[axis]) * probe.inverse[axis];
    }
    float near = t_low < t_high ? t_low : t_high;
    float far = t_low < t_high ? t_high : t_low;
    if constexpr (!kExact) {
      near = near * (near < 0 ? 1 + kWiden : 1 - kWiden) - kTiny;
      far = far * (far > 0 ? 1 + kWiden : 1 - kWiden) + kTiny;
    }
    enter = near > enter ? near : enter;
    exit = far < exit ? far : exit;
  }
  if (!(enter <= exit)) return false;
  t = enter;
  return true;
}

/// Where a ray enters a box: the slab test in float32, exactly as documented on Ray. Returns
/// false when it misses; else sets `t` (never -0).
RSW_HOST_DEVICE inline bool ray_entry(const RayProbe& probe, const TreeBounds& box, float& t) {
  return slab_entry<true>(probe, box, t);
}

/// Whether a ray may enter a node's bounds, and where at the latest (`t`): the widened test.
RSW_HOST_DEVICE inline bool may_enter(const RayProbe& probe, const TreeBounds& box, float& t) {
  return slab_entry<false>(probe, box, t);
}

/// Whether a ray can be cast (see Ray): a finite origin and direction, max_t >= 0 (infinite
/// allowed).
RSW_HOST_DEVICE inline bool ray_is_valid(const Ray& ray) {
  const float values[6] = {ray.origin.x,    ray.origin.y,    ray.origin.z,
                           ray.direction.x, ray.direction.y, ray.direction.z};
  for (const float value : values) {
    if (!(value - value == 0.0f)) return false;  // NaN or infinite
  }
  return ray.max_t >= 0.0f;
}

/// Whether the closed boxes overlap.
RSW_HOST_DEVICE inline bool bounds_overlap(const TreeBounds& a, const TreeBounds& b) {
  for (int axis = 0; axis < 3; ++axis) {
    if (!(a.low[axis] <= b.high[axis] && b.low[axis] <= a.high[axis])) return false;
  }
  return true;
}

/// What a query's leaves must pass: category & mask, and the world unless kAllWorlds.
struct LeafFilter {
  std::uint32_t mask = 0xFFFFFFFFu;
  std::uint32_t world = kAllWorlds;
  const std::uint32_t* worlds = nullptr;  ///< the slots' worlds, read when world isn't
                                          ///< kAllWorlds; none: every slot in world 0

  RSW_HOST_DEVICE bool passes(const TreeLeaf& leaf) const {
    if ((leaf.category & mask) == 0) return false;
    if (world == kAllWorlds) return true;
    const std::uint32_t other = worlds != nullptr ? worlds[leaf.slot] : 0u;
    return other == world || other == kAllWorlds;
  }
};

/// A tree as the walks read it: `count` sorted leaves; one internal node fewer, the root
/// first (none with one leaf).
struct TreeView {
  const TreeNode* nodes = nullptr;
  const TreeLeaf* leaves = nullptr;
  std::uint32_t count = 0;
};

/// Node `index` as a walk reads it: on the GPU in four 16-byte loads through the read-only
/// data path (the tree does not change while it is walked).
RSW_HOST_DEVICE inline TreeNode read_node(const TreeNode* nodes, std::uint32_t index) {
#if defined(__CUDA_ARCH__)
  const auto* words = reinterpret_cast<const float4*>(nodes + index);
  float4 loaded[4];
  for (int k = 0; k < 4; ++k)
    loaded[k] = __ldg(words + k);
  TreeNode node;
  memcpy(&node, loaded, sizeof(node));
  return node;
#else
  return nodes[index];
#endif
}

/// The nearest hit of a ray: the box it enters first, the lowest slot among equals.
struct NearestHit {
  std::uint32_t slot = kNoNode;
  float t = 0;
};

/// Walks the tree: a node's child is entered when enter(its bounds) says so, and an entered
/// leaf goes to leaf(leaf). A lone leaf goes to leaf as it is. Of two children entered, the
/// walk goes on into the first and the second waits on the stack.
template <class Enter, class Leaf>
RSW_HOST_DEVICE void walk_tree(const TreeView& tree, Enter&& enter, Leaf&& leaf) {
  if (tree.count <= 1) {
    if (tree.count == 1) leaf(tree.leaves[0]);
    return;
  }
  std::uint32_t stack[kTreeStack];
  int size = 0;
  std::uint32_t node_index = 0;  // the root
  for (;;) {
    const TreeNode node = read_node(tree.nodes, node_index);
    std::uint32_t next = kNoNode;
    for (int side = 0; side < 2; ++side) {
      if (!enter(node.child_bounds[side])) continue;
      const std::uint32_t child = node.child[side];
      if ((child & kLeafBit) != 0) {
        leaf(tree.leaves[child & ~kLeafBit]);
      } else if (next == kNoNode) {
        next = child;
      } else {
        stack[size++] = child;
      }
    }
    if (next == kNoNode) {
      if (size == 0) return;
      next = stack[--size];
    }
    node_index = next;
  }
}

/// The nearest box `ray` enters among the leaves `filter` passes. Of a node's two children
/// the one the ray may enter first is walked first, and a child it may enter only after the
/// best hit so far is skipped (every box in it is entered then or later).
RSW_HOST_DEVICE inline NearestHit nearest_hit(const TreeView& tree, const Ray& ray,
                                              const LeafFilter& filter) {
  const RayProbe probe = probe_of(ray);
  NearestHit best;
  float best_t = std::numeric_limits<float>::infinity();
  const auto try_leaf = [&](const TreeLeaf& leaf) {
    float t;
    if (!filter.passes(leaf) || !ray_entry(probe, leaf.bounds, t)) return;
    if (t < best_t || (t == best_t && leaf.slot < best.slot)) {
      best_t = t;
      best = {leaf.slot, t};
    }
  };
  if (tree.count <= 1) {
    if (tree.count == 1) try_leaf(tree.leaves[0]);
    return best;
  }
  std::uint32_t stack[kTreeStack];
  float stack_t[kTreeStack];  // where the ray enters each waiting node
  int size = 0;
  stack[size] = 0;
  stack_t[size++] = 0;
  while (size > 0) {
    --size;
    if (stack_t[size] > best_t) continue;  // a hit nearer than the node was found meanwhile
    const TreeNode& node = tree.nodes[stack[size]];
    float t[2];
    bool in[2];
    for (int side = 0; side < 2; ++side)
      in[side] = may_enter(probe, node.child_bounds[side], t[side]) && t[side] <= best_t;
    const int first = in[0] && in[1] && t[1] < t[0] ? 1 : 0;
    for (int k = 1; k >= 0; --k) {  // the later child waits below the nearer
      const int side = k == 0 ? first : 1 - first;
      if (!in[side]) continue;
      const std::uint32_t child = node.child[side];
      if ((child & kLeafBit) != 0) {
        try_leaf(tree.leaves[child & ~kLeafBit]);
      } else {
        stack[size] = child;
        stack_t[size++] = t[side];
      }
    }
  }
  return best;
}

/// Calls hit(slot, t) for every box `ray` enters among the leaves `filter` passes, in no order.
template <class Hit>
RSW_HOST_DEVICE void every_hit(const TreeView& tree, const Ray& ray, const LeafFilter& filter,
                               Hit&& hit) {
  const RayProbe probe = probe_of(ray);
  walk_tree(
      tree,
      [&](const TreeBounds& bounds) {
        float t;
        return may_enter(probe, bounds, t);
      },
      [&](const TreeLeaf& leaf) {
        float t;
        if (filter.passes(leaf) && ray_entry(probe, leaf.bounds, t)) hit(leaf.slot, t);
      });
}

/// Calls hit(slot) for every box overlapping `region` among the leaves `filter` passes.
template <class Hit>
RSW_HOST_DEVICE void every_overlap(const TreeView& tree, const TreeBounds& region,
                                   const LeafFilter& filter, Hit&& hit) {
  walk_tree(
      tree, [&](const TreeBounds& bounds) { return bounds_overlap(region, bounds); },
      [&](const TreeLeaf& leaf) {
        if (filter.passes(leaf) && bounds_overlap(region, leaf.bounds)) hit(leaf.slot);
      });
}

}  // namespace rsw::physics::detail
