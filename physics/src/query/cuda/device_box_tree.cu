// The box tree built and cast against on the GPU: one thread a slot for the leaves and their
// Morton codes, CUB's radix sort for their order, one thread an internal node for its
// children (node_children), the bounds carried up from the leaves (the second thread to reach
// a node goes on), and one thread a query for the walks (regions and rays taken in the order
// of their Morton codes).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/tuple>

#include "../device_box_tree.hpp"
#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/memory.hpp"

namespace rsw::physics::detail {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
// The walks keep their stacks in local memory: fewer threads a block keep more of it in L1.
constexpr int kCastThreads = 128;

unsigned int blocks_for(std::size_t count, int threads = kThreads) {
  return static_cast<unsigned int>((count + static_cast<std::size_t>(threads) - 1) /
                                   static_cast<std::size_t>(threads));
}

/// Thread i: slot i's leaf (empty and category 0 for a free slot or an invalid box), and the
/// slot as the sort's value.
__global__ void make_leaves(const Aabb* boxes, const SlotState* states,
                            const std::uint32_t* categories, std::uint32_t count, TreeLeaf* leaves,
                            std::uint32_t* slots) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  const bool live = states == nullptr || states[i] != SlotState::Free;
  leaves[i] = make_leaf(boxes[i], i, !live ? 0u : categories != nullptr ? categories[i] : 1u);
  slots[i] = i;
}

/// Thread i: box i of six arrays as an Aabb.
__global__ void pack_boxes(DeviceAabbArrays boxes, std::uint32_t count, Aabb* out) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  out[i] = {{boxes.min_x.data[i], boxes.min_y.data[i], boxes.min_z.data[i]},
            {boxes.max_x.data[i], boxes.max_y.data[i], boxes.max_z.data[i]}};
}

/// A slot's generation, 0 without generations (boxes named by index).
__device__ inline std::uint32_t generation_of(const std::uint32_t* generations,
                                              std::uint32_t slot) {
  return generations != nullptr ? generations[slot] : 0u;
}

/// A leaf's centre, for the centres' reduction.
struct CentreOf {
  __device__ TreeBounds operator()(const TreeLeaf& leaf) const { return centre_of(leaf); }
};

struct Merge {
  __device__ TreeBounds operator()(const TreeBounds& a, const TreeBounds& b) const {
    return a.merged(b);
  }
};

__global__ void make_codes(const TreeLeaf* leaves, std::uint32_t count, const TreeBounds* centres,
                           std::uint64_t* codes) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  codes[i] = leaf_code(leaves[i], code_frame(*centres));
}

__global__ void sort_leaves(const TreeLeaf* slot_leaves, const std::uint32_t* sorted_slots,
                            std::uint32_t count, TreeLeaf* leaves) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i < count) leaves[i] = slot_leaves[sorted_slots[i]];
}

/// Thread i: internal node i's children, and their parent.
__global__ void link_nodes(const std::uint64_t* codes, std::uint32_t count, TreeNode* nodes,
                           std::uint32_t* leaf_parents) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i + 1 >= count) return;
  std::uint32_t child[2];
  node_children(codes, count, i, child);
  nodes[i].child[0] = child[0];
  nodes[i].child[1] = child[1];
  if (i == 0) nodes[0].parent = kNoNode;
  for (const std::uint32_t c : child) {
    if ((c & kLeafBit) != 0) {
      leaf_parents[c & ~kLeafBit] = i;
    } else {
      nodes[c].parent = i;
    }
  }
}

__device__ inline void store_bounds(TreeBounds* at, const TreeBounds& bounds) {
  for (int axis = 0; axis < 3; ++axis) {
    __stcg(&at->low[axis], bounds.low[axis]);
    __stcg(&at->high[axis], bounds.high[axis]);
  }
}

__device__ inline TreeBounds load_bounds(const TreeBounds* at) {
  TreeBounds bounds;
  for (int axis = 0; axis < 3; ++axis) {
    bounds.low[axis] = __ldcg(&at->low[axis]);
    bounds.high[axis] = __ldcg(&at->high[axis]);
  }
  return bounds;
}

/// Thread i: leaf i's bounds carried up. At each node the thread writes its child's bounds
/// and counts itself in; the first to arrive stops, the second merges both and goes on.
/// (Stores and loads of the bounds bypass L1, and a fence orders each store before the count.)
__global__ void carry_bounds(const TreeLeaf* leaves, std::uint32_t count, TreeNode* nodes,
                             const std::uint32_t* leaf_parents, std::uint32_t* arrived) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  TreeBounds bounds = leaves[i].bounds;
  std::uint32_t child = i | kLeafBit;
  std::uint32_t node = leaf_parents[i];
  while (node != kNoNode) {
    TreeNode& parent = nodes[node];
    const int side = parent.child[0] == child ? 0 : 1;
    store_bounds(&parent.child_bounds[side], bounds);
    __threadfence();
    if (atomicAdd(&arrived[node], 1u) == 0) return;
    __threadfence();
    bounds = bounds.merged(load_bounds(&parent.child_bounds[1 - side]));
    child = node;
    node = __ldcg(&parent.parent);
  }
}

__global__ void find_invalid_region(const Aabb* regions, std::size_t count, std::uint32_t* first) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i >= count) return;
  const TreeBounds region = bounds_of(regions[i]);
  if (!box_is_valid(region.low, region.high)) atomicMin(first, static_cast<std::uint32_t>(i));
}

__global__ void find_invalid_ray(const Ray* rays, std::size_t count, std::uint32_t* first) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i < count && !ray_is_valid(rays[i])) atomicMin(first, static_cast<std::uint32_t>(i));
}

/// Thread r: ray r's key for the order the rays are cast in (the Morton code of its origin, in
/// the tree's frame, 10 bits a coordinate), and r as the sort's value.
__global__ void key_rays(const Ray* rays, std::uint32_t count, const TreeBounds* centres,
                         std::uint32_t* keys, std::uint32_t* order) {
  const std::uint32_t r = blockIdx.x * kThreads + threadIdx.x;
  if (r >= count) return;
  const Vec3 origin = rays[r].origin;
  const TreeBounds point{{origin.x, origin.y, origin.z}, {origin.x, origin.y, origin.z}};
  keys[r] = static_cast<std::uint32_t>(morton_code(point, code_frame(*centres)) >> 33);
  order[r] = r;
}

/// Thread q: region q's key (the Morton code of its centre) and q, as key_rays.
__global__ void key_regions(const Aabb* regions, std::uint32_t count, const TreeBounds* centres,
                            std::uint32_t* keys, std::uint32_t* order) {
  const std::uint32_t q = blockIdx.x * kThreads + threadIdx.x;
  if (q >= count) return;
  const TreeBounds region = bounds_of(regions[q]);
  keys[q] = static_cast<std::uint32_t>(morton_code(region, code_frame(*centres)) >> 33);
  order[q] = q;
}

/// Hits a region keeps in its thread, sorted there, and stages in its own room; a region
/// with more is crowded: walked again to write its hits in place, and sorted apart (a walk
/// of its own, slower by far: the room is sized for the usual small region).
constexpr std::uint32_t kRegionRoom = 32;

/// Thread i: region order[i] walked: its hit count into counts[q], and unless crowded its
/// slots, sorted, into staged[q * kRegionRoom, ...); a crowded one into `crowded`. A warp
/// walks its 32 regions (neighbours in the Morton order) together: it enters a node when any
/// of them meets it, so each node is read once for the warp rather than once a region (the
/// walks are bound by those reads), and each lane keeps the leaves its own region meets.
__global__ void __launch_bounds__(kCastThreads)
    stage_overlaps(TreeView tree, const Aabb* regions, const std::uint32_t* order,
                   std::uint32_t count, LeafFilter filter, std::uint32_t* counts,
                   std::uint32_t* staged, std::uint32_t* crowded,
                   unsigned long long* crowded_count) {
  constexpr unsigned int kAll = 0xFFFFFFFFu;
  __shared__ std::uint32_t stacks[kCastThreads / 32][kTreeStack];
  const std::uint32_t i = blockIdx.x * kCastThreads + threadIdx.x;
  const bool active = i < count;
  const std::uint32_t q = active ? order[i] : 0;
  const TreeBounds region = active ? bounds_of(regions[q]) : TreeBounds::empty();
  std::uint32_t local[kRegionRoom] = {};
  std::uint32_t hits = 0;
  const auto keep = [&](const TreeLeaf& leaf) {
    if (!filter.passes(leaf)) return;
    if (hits < kRegionRoom) {  // insertion: the slots kept sorted
      std::uint32_t at = hits;
      for (; at > 0 && local[at - 1] > leaf.slot; --at)
        local[at] = local[at - 1];
      local[at] = leaf.slot;
    }
    ++hits;
  };
  if (tree.count == 1) {
    if (bounds_overlap(region, tree.leaves[0].bounds)) keep(tree.leaves[0]);
  } else if (tree.count > 1) {
    // The warp's walk: the node in hand and the stack of those waiting are the same in
    // every lane (the stack in shared memory, written by lane 0).
    std::uint32_t* stack = stacks[threadIdx.x / 32];
    const bool first_lane = threadIdx.x % 32 == 0;
    int size = 0;
    std::uint32_t node_index = 0;
    for (;;) {
      const TreeNode node = tree.nodes[node_index];
      std::uint32_t next = kNoNode;
      for (int side = 0; side < 2; ++side) {
        const bool meets = bounds_overlap(region, node.child_bounds[side]);
        if (__ballot_sync(kAll, meets) == 0) continue;
        const std::uint32_t child = node.child[side];
        if ((child & kLeafBit) != 0) {
          if (meets) keep(tree.leaves[child & ~kLeafBit]);  // its box is the bounds met
        } else if (next == kNoNode) {
          next = child;
        } else {
          if (first_lane) stack[size] = child;
          ++size;
        }
      }
      if (next == kNoNode) {
        __syncwarp();
        if (size == 0) break;
        next = stack[--size];
        __syncwarp();  // read in every lane before lane 0 writes there again
      }
      node_index = next;
    }
  }
  if (!active) return;
  counts[q] = hits;
  if (hits > kRegionRoom) {
    crowded[atomicAdd(crowded_count, 1ull)] = q;
    return;
  }
  std::uint32_t* room = staged + std::size_t{q} * kRegionRoom;
  for (std::uint32_t k = 0; k < hits; ++k)
    room[k] = local[k];
}

/// Thread t: the hit k = t % kRegionRoom of region q = t / kRegionRoom, if it has one and is
/// not crowded: named from its room, at offsets[q] + k (a warp writes its regions' hits side
/// by side).
__global__ void name_staged(const std::uint32_t* staged, std::uint32_t count,
                            const unsigned long long* offsets, const std::uint32_t* generations,
                            QueryHit* out) {
  const std::size_t t = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  const auto q = static_cast<std::uint32_t>(t / kRegionRoom);
  const auto k = static_cast<std::uint32_t>(t % kRegionRoom);
  if (q >= count) return;
  const unsigned long long first = offsets[q];
  const unsigned long long hits = offsets[q + 1] - first;
  if (k >= hits || hits > kRegionRoom) return;
  const std::uint32_t slot = staged[t];
  out[first + k] = {q, {slot, generation_of(generations, slot)}};
}

/// Thread k: crowded region k walked again, its slots written at offsets[q] in `slots`.
__global__ void __launch_bounds__(kCastThreads)
    write_crowded(TreeView tree, const Aabb* regions, const std::uint32_t* crowded,
                  std::uint32_t count, LeafFilter filter, const unsigned long long* offsets,
                  std::uint32_t* slots) {
  const std::uint32_t k = blockIdx.x * kCastThreads + threadIdx.x;
  if (k >= count) return;
  const std::uint32_t q = crowded[k];
  const unsigned long long first = offsets[q];
  const unsigned long long hits = offsets[q + 1] - first;
  const TreeBounds region = bounds_of(regions[q]);
  unsigned long long at = 0;
  every_overlap(tree, region, filter, [&](std::uint32_t slot) {
    if (at < hits) slots[first + at++] = slot;  // the walk meets what the first one met
  });
}

/// Where a crowded region's hits start and end, for the segmented sort.
struct SegmentStart {
  const unsigned long long* offsets;
  __device__ unsigned long long operator()(std::uint32_t q) const { return offsets[q]; }
};
struct SegmentEnd {
  const unsigned long long* offsets;
  __device__ unsigned long long operator()(std::uint32_t q) const { return offsets[q + 1]; }
};

/// Block k: crowded region k's sorted slots, named.
__global__ void name_crowded(const std::uint32_t* crowded, const unsigned long long* offsets,
                             const std::uint32_t* sorted_slots, const std::uint32_t* generations,
                             QueryHit* out) {
  const std::uint32_t q = crowded[blockIdx.x];
  for (unsigned long long at = offsets[q] + threadIdx.x; at < offsets[q + 1]; at += kThreads) {
    const std::uint32_t slot = sorted_slots[at];
    out[at] = {q, {slot, generation_of(generations, slot)}};
  }
}

/// Thread i: the nearest hit of ray order[i] (rays near each other in a warp walk much the
/// same nodes), named, or ray = kNoNode when it hits nothing.
__global__ void __launch_bounds__(kCastThreads)
    cast_nearest(TreeView tree, const Ray* rays, const std::uint32_t* order, std::uint32_t count,
                 LeafFilter filter, const std::uint32_t* generations, RayHit* out) {
  const std::uint32_t i = blockIdx.x * kCastThreads + threadIdx.x;
  if (i >= count) return;
  const std::uint32_t r = order[i];
  const NearestHit hit = nearest_hit(tree, rays[r], filter);
  RayHit named{kNoNode, {}, hit.t};
  if (hit.slot != kNoNode) named = {r, {hit.slot, generation_of(generations, hit.slot)}, hit.t};
  out[r] = named;
}

struct IsHit {
  __device__ bool operator()(const RayHit& hit) const { return hit.ray != kNoNode; }
};

/// Appends `hit` to out (one atomic for the threads appending together); past `capacity`
/// hits are counted only.
__device__ inline void append_hit(const SlotHit& hit, SlotHit* out, unsigned long long* count,
                                  unsigned long long capacity) {
  const cg::coalesced_group group = cg::coalesced_threads();
  unsigned long long base = 0;
  if (group.thread_rank() == 0)
    base = atomicAdd(count, static_cast<unsigned long long>(group.size()));
  base = group.shfl(base, 0);
  const unsigned long long at = base + group.thread_rank();
  if (at < capacity) out[at] = hit;
}

/// Thread i: every hit of ray order[i], appended.
__global__ void __launch_bounds__(kCastThreads)
    cast_all(TreeView tree, const Ray* rays, const std::uint32_t* order, std::uint32_t count,
             LeafFilter filter, SlotHit* out, unsigned long long* total,
             unsigned long long capacity) {
  const std::uint32_t i = blockIdx.x * kCastThreads + threadIdx.x;
  if (i >= count) return;
  const std::uint32_t r = order[i];
  every_hit(tree, rays[r], filter, [&](std::uint32_t slot, float t) {
    append_hit({r, slot, t}, out, total, capacity);
  });
}

/// A hit as the radix sort reads it: ray, then t, then slot.
struct HitDecomposer {
  __host__ __device__ ::cuda::std::tuple<std::uint32_t&, float&, std::uint32_t&> operator()(
      SlotHit& hit) const {
    return {hit.ray, hit.t, hit.slot};
  }
};

__global__ void name_hits(const SlotHit* hits, std::size_t count, const std::uint32_t* generations,
                          RayHit* out) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i >= count) return;
  const SlotHit hit = hits[i];
  out[i] = {hit.ray, {hit.slot, generation_of(generations, hit.slot)}, hit.t};
}

__global__ void query_hits_by_box(const QueryHit* hits, std::size_t count, BoxQueryHit* out) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i < count) out[i] = {hits[i].query, hits[i].proxy.index};
}

__global__ void ray_hits_by_box(const RayHit* hits, std::size_t count, BoxRayHit* out) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i < count) out[i] = {hits[i].ray, hits[i].proxy.index, hits[i].t};
}

}  // namespace

TreeView DeviceBoxTree::view() const {
  return {nodes_.data(), leaves_.data(), count_};
}

void DeviceBoxTree::build(const Aabb* boxes, const SlotState* states,
                          const std::uint32_t* categories, std::uint32_t count,
                          StreamHandle stream) {
  count_ = count;
  slot_leaves_.resize_discarding(count);
  slots_.resize_discarding(count);
  codes_.resize_discarding(count);
  sorted_codes_.resize_discarding(count);
  sorted_slots_.resize_discarding(count);
  leaves_.resize_discarding(count);
  centres_.resize_discarding(1);
  if (count == 0) return;
  make_leaves<<<blocks_for(count), kThreads, 0, stream>>>(boxes, states, categories, count,
                                                          slot_leaves_.data(), slots_.data());
  RSW_CUDA_CHECK_LAUNCH("launching make_leaves");
  const auto centres = thrust::make_transform_iterator(slot_leaves_.data(), CentreOf{});
  std::size_t bytes = 0;
  RSW_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, centres, centres_.data(), count, Merge{},
                                           TreeBounds::empty(), stream),
                 "sizing the tree's centres");
  std::size_t sort_bytes = 0;
  RSW_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, codes_.data(), sorted_codes_.data(),
                                      slots_.data(), sorted_slots_.data(), count, 0, 64, stream),
      "sizing the tree's sort");
  temp_.resize_discarding(std::max({temp_.size(), bytes, sort_bytes}));
  bytes = temp_.size();
  RSW_CUDA_CHECK(cub::DeviceReduce::Reduce(temp_.data(), bytes, centres, centres_.data(), count,
                                           Merge{}, TreeBounds::empty(), stream),
                 "reducing the tree's centres");
  make_codes<<<blocks_for(count), kThreads, 0, stream>>>(slot_leaves_.data(), count,
                                                         centres_.data(), codes_.data());
  RSW_CUDA_CHECK_LAUNCH("launching make_codes");
  bytes = temp_.size();
  RSW_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, codes_.data(), sorted_codes_.data(),
                                      slots_.data(), sorted_slots_.data(), count, 0, 64, stream),
      "sorting the tree's leaves");
  sort_leaves<<<blocks_for(count), kThreads, 0, stream>>>(slot_leaves_.data(), sorted_slots_.data(),
                                                          count, leaves_.data());
  RSW_CUDA_CHECK_LAUNCH("launching sort_leaves");
  const std::uint32_t internal = count - 1;
  nodes_.resize_discarding(internal);
  arrived_.resize_discarding(internal);
  leaf_parents_.resize_discarding(count);
  if (internal == 0) return;
  arrived_.fill_zero(stream);
  link_nodes<<<blocks_for(internal), kThreads, 0, stream>>>(sorted_codes_.data(), count,
                                                            nodes_.data(), leaf_parents_.data());
  RSW_CUDA_CHECK_LAUNCH("launching link_nodes");
  carry_bounds<<<blocks_for(count), kThreads, 0, stream>>>(leaves_.data(), count, nodes_.data(),
                                                           leaf_parents_.data(), arrived_.data());
  RSW_CUDA_CHECK_LAUNCH("launching carry_bounds");
}

namespace {

// The lowest index `find` marks in a batch of `count` queries, or nothing; waits.
template <class Query>
std::optional<std::uint32_t> first_marked(void (*find)(const Query*, std::size_t, std::uint32_t*),
                                          const char* what, DeviceSpan<const Query> queries,
                                          DeviceBuffer<std::uint32_t>& first, StreamHandle stream) {
  if (queries.size == 0) return std::nullopt;
  const std::uint32_t none = kNoNode;
  first.resize_discarding(1);
  rsw::detail::copy_host_to_device(first.data(), &none, sizeof(none), stream);
  find<<<blocks_for(queries.size), kThreads, 0, stream>>>(queries.data, queries.size, first.data());
  RSW_CUDA_CHECK_LAUNCH(what);
  std::uint32_t index = kNoNode;
  rsw::detail::copy_device_to_host(&index, first.data(), sizeof(index), stream);
  synchronize(stream);
  if (index == kNoNode) return std::nullopt;
  return index;
}

}  // namespace

std::optional<std::uint32_t> DeviceBoxTree::first_invalid(DeviceSpan<const Aabb> regions,
                                                          StreamHandle stream) {
  return first_marked(find_invalid_region, "launching find_invalid_region", regions, first_invalid_,
                      stream);
}

std::optional<std::uint32_t> DeviceBoxTree::first_invalid(DeviceSpan<const Ray> rays,
                                                          StreamHandle stream) {
  return first_marked(find_invalid_ray, "launching find_invalid_ray", rays, first_invalid_, stream);
}

void DeviceBoxTree::build(const DeviceAabbArrays& boxes, const std::uint32_t* categories,
                          std::uint32_t count, StreamHandle stream) {
  packed_.resize_discarding(count);
  if (count > 0) {
    pack_boxes<<<blocks_for(count), kThreads, 0, stream>>>(boxes, count, packed_.data());
    RSW_CUDA_CHECK_LAUNCH("launching pack_boxes");
  }
  build(packed_.data(), nullptr, categories, count, stream);
}

DeviceSpan<const BoxQueryHit> DeviceBoxTree::box_hits(DeviceSpan<const QueryHit> hits,
                                                      StreamHandle stream) {
  box_query_hits_.resize_discarding(hits.size);
  if (hits.size > 0) {
    query_hits_by_box<<<blocks_for(hits.size), kThreads, 0, stream>>>(hits.data, hits.size,
                                                                      box_query_hits_.data());
    RSW_CUDA_CHECK_LAUNCH("launching query_hits_by_box");
  }
  return box_query_hits_.span();
}

DeviceSpan<const BoxRayHit> DeviceBoxTree::box_hits(DeviceSpan<const RayHit> hits,
                                                    StreamHandle stream) {
  box_ray_hits_.resize_discarding(hits.size);
  if (hits.size > 0) {
    ray_hits_by_box<<<blocks_for(hits.size), kThreads, 0, stream>>>(hits.data, hits.size,
                                                                    box_ray_hits_.data());
    RSW_CUDA_CHECK_LAUNCH("launching ray_hits_by_box");
  }
  return box_ray_hits_.span();
}

void DeviceBoxTree::order_rays(DeviceSpan<const Ray> rays, StreamHandle stream) {
  const auto count = static_cast<std::uint32_t>(rays.size);
  ray_keys_.resize_discarding(count);
  sorted_ray_keys_.resize_discarding(count);
  order_.resize_discarding(count);
  sorted_order_.resize_discarding(count);
  key_rays<<<blocks_for(count), kThreads, 0, stream>>>(rays.data, count, centres_.data(),
                                                       ray_keys_.data(), order_.data());
  RSW_CUDA_CHECK_LAUNCH("launching key_rays");
  sort_order(count, stream);
}

void DeviceBoxTree::sort_order(std::uint32_t count, StreamHandle stream) {
  std::size_t bytes = 0;
  RSW_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, ray_keys_.data(), sorted_ray_keys_.data(),
                                      order_.data(), sorted_order_.data(), count, 0, 30, stream),
      "sizing the queries' sort");
  temp_.resize_discarding(std::max(temp_.size(), bytes));
  bytes = temp_.size();
  RSW_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, ray_keys_.data(),
                                                 sorted_ray_keys_.data(), order_.data(),
                                                 sorted_order_.data(), count, 0, 30, stream),
                 "sorting the queries");
}

DeviceSpan<const QueryHit> DeviceBoxTree::overlap(DeviceSpan<const Aabb> regions,
                                                  const LeafFilter& filter,
                                                  const std::uint32_t* generations,
                                                  StreamHandle stream) {
  const auto count = static_cast<std::uint32_t>(regions.size);
  if (count == 0 || count_ == 0) {
    query_hits_.resize_discarding(0);
    return query_hits_.span();
  }
  ray_keys_.resize_discarding(count);
  sorted_ray_keys_.resize_discarding(count);
  order_.resize_discarding(count);
  sorted_order_.resize_discarding(count);
  key_regions<<<blocks_for(count), kThreads, 0, stream>>>(regions.data, count, centres_.data(),
                                                          ray_keys_.data(), order_.data());
  RSW_CUDA_CHECK_LAUNCH("launching key_regions");
  sort_order(count, stream);
  // One walk: counts, the regions' hits staged; offsets, and a wait for the total and the
  // crowded regions.
  region_counts_.resize_discarding(std::size_t{count} + 1);
  region_offsets_.resize_discarding(std::size_t{count} + 1);
  staged_.resize_discarding(std::size_t{count} * kRegionRoom);
  crowded_.resize_discarding(count);
  counter_.resize_discarding(1);
  counter_.fill_zero(stream);
  region_counts_.fill_zero(stream);  // the last stays 0: the scan's total
  stage_overlaps<<<blocks_for(count, kCastThreads), kCastThreads, 0, stream>>>(
      view(), regions.data, sorted_order_.data(), count, filter, region_counts_.data(),
      staged_.data(), crowded_.data(), counter_.data());
  RSW_CUDA_CHECK_LAUNCH("launching stage_overlaps");
  std::size_t bytes = 0;
  RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, region_counts_.data(),
                                               region_offsets_.data(), count + 1, stream),
                 "sizing the regions' offsets");
  temp_.resize_discarding(std::max(temp_.size(), bytes));
  bytes = temp_.size();
  RSW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, region_counts_.data(),
                                               region_offsets_.data(), count + 1, stream),
                 "the regions' offsets");
  unsigned long long sizes[2] = {};  // hits, crowded regions
  rsw::detail::copy_device_to_host(&sizes[0], region_offsets_.data() + count, sizeof(sizes[0]),
                                   stream);
  rsw::detail::copy_device_to_host(&sizes[1], counter_.data(), sizeof(sizes[1]), stream);
  synchronize(stream);
  const auto total = static_cast<std::size_t>(sizes[0]);
  const auto crowded = static_cast<std::uint32_t>(sizes[1]);
  query_hits_.resize_discarding(total);
  if (total == 0) return query_hits_.span();
  name_staged<<<blocks_for(std::size_t{count} * kRegionRoom), kThreads, 0, stream>>>(
      staged_.data(), count, region_offsets_.data(), generations, query_hits_.data());
  RSW_CUDA_CHECK_LAUNCH("launching name_staged");
  if (crowded == 0) return query_hits_.span();
  region_slots_.resize_discarding(total);
  sorted_region_slots_.resize_discarding(total);
  write_crowded<<<blocks_for(crowded, kCastThreads), kCastThreads, 0, stream>>>(
      view(), regions.data, crowded_.data(), crowded, filter, region_offsets_.data(),
      region_slots_.data());
  RSW_CUDA_CHECK_LAUNCH("launching write_crowded");
  const auto starts =
      thrust::make_transform_iterator(crowded_.data(), SegmentStart{region_offsets_.data()});
  const auto ends =
      thrust::make_transform_iterator(crowded_.data(), SegmentEnd{region_offsets_.data()});
  bytes = 0;
  RSW_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
                     nullptr, bytes, region_slots_.data(), sorted_region_slots_.data(),
                     static_cast<std::int64_t>(total), crowded, starts, ends, stream),
                 "sizing the crowded regions' sort");
  temp_.resize_discarding(std::max(temp_.size(), bytes));
  bytes = temp_.size();
  RSW_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
                     temp_.data(), bytes, region_slots_.data(), sorted_region_slots_.data(),
                     static_cast<std::int64_t>(total), crowded, starts, ends, stream),
                 "sorting the crowded regions' hits");
  name_crowded<<<crowded, kThreads, 0, stream>>>(crowded_.data(), region_offsets_.data(),
                                                 sorted_region_slots_.data(), generations,
                                                 query_hits_.data());
  RSW_CUDA_CHECK_LAUNCH("launching name_crowded");
  return query_hits_.span();
}

DeviceSpan<const RayHit> DeviceBoxTree::cast(DeviceSpan<const Ray> rays, const LeafFilter& filter,
                                             bool all_hits, const std::uint32_t* generations,
                                             StreamHandle stream) {
  const auto count = static_cast<std::uint32_t>(rays.size);
  counter_.resize_discarding(1);
  if (count == 0 || count_ == 0) {
    hits_.resize_discarding(0);
    return hits_.span();
  }
  order_rays(rays, stream);
  if (!all_hits) {
    nearest_.resize_discarding(count);
    hits_.resize_discarding(count);
    cast_nearest<<<blocks_for(count, kCastThreads), kCastThreads, 0, stream>>>(
        view(), rays.data, sorted_order_.data(), count, filter, generations, nearest_.data());
    RSW_CUDA_CHECK_LAUNCH("launching cast_nearest");
    std::size_t bytes = 0;
    RSW_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, nearest_.data(), hits_.data(),
                                         counter_.data(), count, IsHit{}, stream),
                   "sizing the rays' selection");
    temp_.resize_discarding(std::max(temp_.size(), bytes));
    bytes = temp_.size();
    RSW_CUDA_CHECK(cub::DeviceSelect::If(temp_.data(), bytes, nearest_.data(), hits_.data(),
                                         counter_.data(), count, IsHit{}, stream),
                   "selecting the rays' hits");
    unsigned long long hits = 0;
    rsw::detail::copy_device_to_host(&hits, counter_.data(), sizeof(hits), stream);
    synchronize(stream);
    return {hits_.data(), static_cast<std::size_t>(hits)};
  }
  // Every hit: appended, counted, and cast again into a larger buffer when they did not fit.
  slot_hits_.resize_discarding(
      std::max<std::size_t>(slot_hits_.capacity(), 4 * std::size_t{count}));
  unsigned long long hits = 0;
  for (;;) {
    counter_.fill_zero(stream);
    cast_all<<<blocks_for(count, kCastThreads), kCastThreads, 0, stream>>>(
        view(), rays.data, sorted_order_.data(), count, filter, slot_hits_.data(), counter_.data(),
        slot_hits_.size());
    RSW_CUDA_CHECK_LAUNCH("launching cast_all");
    rsw::detail::copy_device_to_host(&hits, counter_.data(), sizeof(hits), stream);
    synchronize(stream);
    if (hits <= slot_hits_.size()) break;
    slot_hits_.resize_discarding(static_cast<std::size_t>(hits));
  }
  sorted_hits_.resize_discarding(static_cast<std::size_t>(hits));
  hits_.resize_discarding(static_cast<std::size_t>(hits));
  if (hits == 0) return hits_.span();
  std::size_t bytes = 0;
  RSW_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, slot_hits_.data(),
                                                sorted_hits_.data(), hits, HitDecomposer{}, stream),
                 "sizing the sort of the rays' hits");
  temp_.resize_discarding(std::max(temp_.size(), bytes));
  bytes = temp_.size();
  RSW_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_.data(), bytes, slot_hits_.data(),
                                                sorted_hits_.data(), hits, HitDecomposer{}, stream),
                 "sorting the rays' hits");
  name_hits<<<blocks_for(hits), kThreads, 0, stream>>>(sorted_hits_.data(), hits, generations,
                                                       hits_.data());
  RSW_CUDA_CHECK_LAUNCH("launching name_hits");
  return hits_.span();
}

}  // namespace rsw::physics::detail
