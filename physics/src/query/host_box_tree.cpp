#include "host_box_tree.hpp"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <utility>

#include "rsw/engine/memory.hpp"
#include "rsw/engine/parallel.hpp"

namespace rsw::physics::detail {
namespace {

constexpr std::size_t kGrain = 4096;

// The bounds of the centres of the boxes the leaves hold.
TreeBounds centre_bounds(std::span<const TreeLeaf> leaves) {
  TreeBounds centres = TreeBounds::empty();
  for (const TreeLeaf& leaf : leaves)
    centres = centres.merged(centre_of(leaf));
  return centres;
}

}  // namespace

void HostBoxTree::build(std::span<const Aabb> boxes, std::span<const std::uint32_t> categories) {
  const std::size_t count = boxes.size();
  std::vector<TreeLeaf> leaves;
  resize_host(leaves, count, "the box tree's leaves");
  for (std::size_t slot = 0; slot < count; ++slot)
    leaves[slot] = make_leaf(boxes[slot], static_cast<std::uint32_t>(slot), categories[slot]);
  const CodeFrame frame = code_frame(centre_bounds(leaves));
  std::vector<std::uint64_t> codes;
  resize_host(codes, count, "the box tree's codes");
  for (std::size_t slot = 0; slot < count; ++slot)
    codes[slot] = leaf_code(leaves[slot], frame);
  std::vector<std::uint32_t> order;
  resize_host(order, count, "the box tree's order");
  std::iota(order.begin(), order.end(), 0u);
  std::ranges::sort(order, [&](std::uint32_t a, std::uint32_t b) {
    return codes[a] != codes[b] ? codes[a] < codes[b] : a < b;
  });
  resize_host(leaves_, count, "the box tree's leaves");
  std::vector<std::uint64_t> sorted_codes;
  resize_host(sorted_codes, count, "the box tree's codes");
  for (std::size_t i = 0; i < count; ++i) {
    leaves_[i] = leaves[order[i]];
    sorted_codes[i] = codes[order[i]];
  }
  const std::size_t internal = count > 1 ? count - 1 : 0;
  resize_host(nodes_, internal, "the box tree's nodes");
  std::vector<std::uint32_t> leaf_parent;
  resize_host(leaf_parent, count, "the box tree's parents");
  const auto leaf_count = static_cast<std::uint32_t>(count);
  for_each_part(internal, kGrain, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      TreeNode& node = nodes_[i];
      node_children(sorted_codes.data(), leaf_count, static_cast<std::uint32_t>(i), node.child);
      for (const std::uint32_t child : node.child) {
        if ((child & kLeafBit) != 0) {
          leaf_parent[child & ~kLeafBit] = static_cast<std::uint32_t>(i);
        } else {
          nodes_[child].parent = static_cast<std::uint32_t>(i);
        }
      }
    }
  });
  if (internal == 0) return;
  nodes_[0].parent = kNoNode;
  // Bounds from the leaves up: the second child to arrive at a node carries on with the union.
  std::vector<std::uint8_t> arrived(internal, 0);
  for (std::uint32_t i = 0; i < leaf_count; ++i) {
    TreeBounds bounds = leaves_[i].bounds;
    std::uint32_t child = i | kLeafBit;
    std::uint32_t node = leaf_parent[i];
    while (node != kNoNode) {
      TreeNode& parent = nodes_[node];
      const int side = parent.child[0] == child ? 0 : 1;
      parent.child_bounds[side] = bounds;
      if (arrived[node]++ == 0) break;
      bounds = parent.child_bounds[0].merged(parent.child_bounds[1]);
      child = node;
      node = parent.parent;
    }
  }
}

namespace {

// Runs per_query(query, hits) over [0, count) on the CPU's threads, each part's hits apart, and
// joins them in query order into `out`.
template <class Hit, class PerQuery>
void for_each_query(std::size_t count, std::vector<Hit>& out, const PerQuery& per_query) {
  std::mutex mutex;
  std::vector<std::pair<std::size_t, std::vector<Hit>>> parts;
  for_each_part(count, kGrain / 8, [&](std::size_t first, std::size_t last) {
    std::vector<Hit> hits;
    for (std::size_t q = first; q < last; ++q)
      per_query(static_cast<std::uint32_t>(q), hits);
    const std::lock_guard lock(mutex);
    parts.emplace_back(first, std::move(hits));
  });
  std::ranges::sort(parts, {}, [](const auto& part) { return part.first; });
  std::size_t total = 0;
  for (const auto& part : parts)
    total += part.second.size();
  resize_host(out, total, "the queries' hits");
  auto at = out.begin();
  for (const auto& part : parts)
    at = std::ranges::copy(part.second, at).out;
}

}  // namespace

void overlap_regions(const TreeView& tree, std::span<const Aabb> regions, const LeafFilter& filter,
                     std::vector<Pair>& out) {
  for_each_query(regions.size(), out, [&](std::uint32_t q, std::vector<Pair>& hits) {
    const TreeBounds region = bounds_of(regions[q]);
    const std::size_t from = hits.size();
    every_overlap(tree, region, filter, [&](std::uint32_t slot) { hits.push_back({q, slot}); });
    std::sort(hits.begin() + static_cast<std::ptrdiff_t>(from), hits.end());
  });
}

void cast_rays(const TreeView& tree, std::span<const Ray> rays, const LeafFilter& filter,
               bool all_hits, std::vector<SlotHit>& out) {
  for_each_query(rays.size(), out, [&](std::uint32_t r, std::vector<SlotHit>& hits) {
    if (!all_hits) {
      const NearestHit hit = nearest_hit(tree, rays[r], filter);
      if (hit.slot != kNoNode) hits.push_back({r, hit.slot, hit.t});
      return;
    }
    const std::size_t from = hits.size();
    every_hit(tree, rays[r], filter, [&](std::uint32_t slot, float t) {
      hits.push_back({r, slot, t});
    });
    std::sort(hits.begin() + static_cast<std::ptrdiff_t>(from), hits.end(),
              [](const SlotHit& a, const SlotHit& b) {
                return a.t != b.t ? a.t < b.t : a.slot < b.slot;
              });
  });
}

}  // namespace rsw::physics::detail
