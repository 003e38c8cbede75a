// The box tree (box_tree.hpp) on the CPU: built from a world's slots, and the batched region
// and ray queries answered from it on the CPU's threads.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "box_tree.hpp"

namespace rsw::physics::detail {

/// A ray's hit as a slot: the ray's index, the slot and where the ray enters its box.
struct SlotHit {
  std::uint32_t ray = 0;
  std::uint32_t slot = 0;
  float t = 0;
};

class HostBoxTree {
 public:
  /// A tree over the slots' boxes; slot i is queried by categories[i], and a slot whose
  /// category is 0 or whose box is not valid is met by nothing.
  void build(std::span<const Aabb> boxes, std::span<const std::uint32_t> categories);
  TreeView view() const {
    return {nodes_.data(), leaves_.data(), static_cast<std::uint32_t>(leaves_.size())};
  }

 private:
  std::vector<TreeLeaf> leaves_;
  std::vector<TreeNode> nodes_;
};

/// The (region, slot) pairs whose boxes overlap, sorted, into `out`.
void overlap_regions(const TreeView& tree, std::span<const Aabb> regions, const LeafFilter& filter,
                     std::vector<Pair>& out);

/// Each ray's nearest hit (one for each ray that hits, in ray order), or with `all_hits` every
/// hit, sorted by (ray, t, slot), into `out`.
void cast_rays(const TreeView& tree, std::span<const Ray> rays, const LeafFilter& filter,
               bool all_hits, std::vector<SlotHit>& out);

}  // namespace rsw::physics::detail
