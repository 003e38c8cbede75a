// rsw::physics::BroadPhase: the exact set of overlapping box pairs, by sweep-and-prune over
// boxes sorted with rsw::sort, on the GPU or the CPU, or by brute force (the test oracle).
//
//   #include <rsw/physics/broad_phase.hpp>
//   using namespace rsw::physics;
//   std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}}, {{1, 0.5f, 0.5f}, {2, 2, 2}}};
//   BroadPhase bp({.backend = rsw::Backend::Auto});
//   bp.update(boxes);                        // also: SoA arrays, device arrays
//   for (const Pair& p : bp.find_pairs()) {  // p.a < p.b, each pair once
//   }
//
// Each update() is one frame. The boxes are sorted by their minimum on the sweep axis, with
// the keys built in last frame's sorted order (temporal coherence: a scene at rest gives keys
// in order, which the sort's order check turns into one read, and under motion the boxes move
// only a little in the sorted order, which the GPU's gathers read nearly in order). No pair is
// ever dropped: the GPU appends pairs into a buffer sized from the last frame, and when it
// overflows, grows it to the exact count and writes them again.
//
// On the GPU a frame can stay on the device: update() from DeviceAabbArrays and
// find_pairs_device() move no boxes or pairs over PCIe, and the frame waits for the device
// twice (for the cell listing count and for the pair count).
//
// Every failure is an rsw::Error, whichever thread or device met it: invalid boxes (under
// InvalidBoxes::Reject), host or device memory that cannot be had (OutOfMemory), a GPU that
// fails. After a failed update() there is no frame (find_pairs() is empty) and the next
// update() starts afresh, as on the first frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "rsw/engine/api.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/sort/sorter.hpp"

namespace rsw::physics {

/// The axis boxes are sorted and swept along.
enum class SweepAxis {
  X,  ///< as in the paper
  Y,
  Z,
  LargestVariance,  ///< the axis along which box centres spread most, chosen each frame
};

/// How boxes that overlap on the sweep axis are found.
enum class SweepMode {
  /// Sweep inside the cells of a coarse grid over the two other axes: each box is listed in
  /// the cells it covers, each cell's list is swept, and a pair is reported only in the one
  /// cell that holds the larger of the two boxes' minimum corners. The work stays near
  /// n + pairs where a single sweep along one axis grows like n^(5/3) in a 3-D cloud.
  Cells,
  /// The paper's sweep along one axis over all boxes (Ha et al. 2009, Sec. 6.1).
  AxisSweep,
};

/// What happens to a box with a NaN or infinite coordinate, or min > max on some axis.
enum class InvalidBoxes {
  Reject,   ///< update() throws rsw::Error(InvalidArgument) naming the first such box
  Exclude,  ///< the box takes part in no pair; stats().excluded_boxes counts them
};

/// Setup of a BroadPhase.
struct BroadPhaseOptions {
  rsw::Backend backend = rsw::Backend::Auto;  ///< Auto: the GPU when a CUDA device is usable
  bool brute_force = false;  ///< test every pair on the CPU, O(n^2): the oracle for tests
  sort::Algorithm sort = sort::Algorithm::Auto;       ///< the CPU/GPU sort toggle of the UI
  SweepAxis axis = SweepAxis::X;                      ///< ignored by brute_force
  SweepMode mode = SweepMode::Cells;                  ///< ignored by brute_force
  InvalidBoxes invalid_boxes = InvalidBoxes::Reject;  ///< brute_force applies it too
  /// Report pairs sorted by (a, b). Otherwise the order is the sweep's, which on the GPU
  /// differs from run to run (blocks append as they finish); the set never does.
  bool sorted_pairs = false;
  /// Report pairs sorted by (world, a, b), and where each world's begin:
  /// BroadPhase::world_pair_offsets(). A pair's world is its boxes' (FilterArrays::worlds), the
  /// other box's when one is in kAllWorlds; pairs of two kAllWorlds boxes come last.
  bool group_by_world = false;
  /// Time each stage (upload, keys, sort, list, sweep, pair_sort, download) for stats(). The GPU
  /// backend records a pair of CUDA events per stage and reads them at the end of the frame,
  /// which costs host time; off, it measures only total_ms and its stage times read 0. (The
  /// CPU backends' host-clock times cost nothing and are always taken.)
  bool stage_times = true;
  /// The CUDA stream the GPU backend works on; nullptr: a stream of its own, ordered with the
  /// default stream. Device boxes passed to update() must be ready in this stream's order (with
  /// nullptr: queued on the default stream, or ready before the call), and
  /// find_pairs_device()'s pairs are ready in it.
  rsw::StreamHandle stream = nullptr;
};

/// Boxes as structure-of-arrays in device memory: six arrays of equal length.
struct DeviceAabbArrays {
  /// Box i's minimum and maximum on each axis are element i of these arrays.
  ///@{
  rsw::DeviceSpan<const float> min_x;
  rsw::DeviceSpan<const float> min_y;
  rsw::DeviceSpan<const float> min_z;
  rsw::DeviceSpan<const float> max_x;
  rsw::DeviceSpan<const float> max_y;
  rsw::DeviceSpan<const float> max_z;
  ///@}
};

/// FilterArrays in device memory (empty spans: the defaults).
struct DeviceFilterArrays {
  rsw::DeviceSpan<const std::uint32_t> categories;  ///< one per box, or empty
  rsw::DeviceSpan<const std::uint32_t> masks;       ///< one per box, or empty
  rsw::DeviceSpan<const std::uint32_t> worlds;      ///< one per box, or empty
};

/// A box overlapping a query region (BroadPhase::query).
struct BoxQueryHit {
  std::uint32_t query = 0;  ///< the region's index in the query
  std::uint32_t box = 0;    ///< the box's index in the last update()
  /// Orders hits by query, then box.
  friend constexpr auto operator<=>(const BoxQueryHit&, const BoxQueryHit&) = default;
};

/// A box a ray meets (BroadPhase::raycast; see Ray for the test).
struct BoxRayHit {
  std::uint32_t ray = 0;  ///< the ray's index in the query
  std::uint32_t box = 0;  ///< the box's index in the last update()
  float t = 0;            ///< where the ray enters the box (0 when it starts inside)
};

/// What the last frame did. Times in milliseconds (CUDA events on the GPU, the host clock on
/// the CPU), one per stage: each stage is the same work on every backend, and reads zero where
/// a backend does not have it (brute force times only keys and sweep).
struct BroadPhaseStats {
  rsw::Backend backend = rsw::Backend::Cpu;  ///< where the frame ran
  std::size_t boxes = 0;                     ///< boxes passed to update(), excluded ones included
  std::size_t excluded_boxes = 0;            ///< invalid boxes left out (InvalidBoxes::Exclude)
  std::size_t candidates = 0;    ///< pairs overlapping on the sweep axis, tested on the others
  std::size_t cells = 0;         ///< grid cells (SweepMode::Cells); 0 otherwise, and for
                                 ///< small worlds swept whole (GPU, from a scene's 2nd frame)
  std::size_t cell_entries = 0;  ///< (box, cell) listings: boxes spanning cells count twice
  std::size_t pairs = 0;         ///< overlapping pairs that pass the filter bits
  int sweep_axis = 0;            ///< 0 = x, 1 = y, 2 = z
  bool listing_reused = false;   ///< GPU: the frame swept the cell listing a frame before kept
                                 ///< (every box stayed in its listed cells): no sort, no listing
  sort::SortStats sort;          ///< passes run and skipped, early exit; none (count 0)
                                 ///< when worlds in runs were swept a run at a time (GPU)
  double upload_ms = 0;          ///< host boxes to the device (GPU)
  double keys_ms = 0;            ///< validation, the frame's plan, sort keys in last frame's order
  double sort_ms = 0;            ///< the boxes sorted by their minimum on the sweep axis
  double list_ms = 0;       ///< boxes gathered in sorted order, listed in cells, listings sorted
  double sweep_ms = 0;      ///< candidates tested on the other axes and filter bits, pairs written
  double pair_sort_ms = 0;  ///< pairs ordered by (a, b) (BroadPhaseOptions::sorted_pairs)
  double download_ms = 0;   ///< pairs to the host (GPU; measured by find_pairs())
  double total_ms = 0;      ///< the whole of update() + find_pairs(), host clock
};

/// The pairs of the last frame, in host memory; valid until the next update().
using PairView = std::span<const Pair>;
/// The pairs of the last frame, in device memory; valid until the next update().
using DevicePairView = rsw::DeviceSpan<const Pair>;

/// Finds the overlapping pairs of a set of boxes, frame after frame: update() with the boxes,
/// then find_pairs() or find_pairs_device(). Keeps the sorted order from frame to frame. Not
/// thread-safe: one broad phase per thread.
class RSW_API BroadPhase {
 public:
  /// Takes the options as given; each update() resolves the backend and may throw then.
  explicit BroadPhase(BroadPhaseOptions options = {});
  ~BroadPhase();
  /// Moves take over the frame, its pairs and the sorted order; a moved-from broad phase may
  /// only be assigned to or destroyed.
  ///@{
  BroadPhase(BroadPhase&&) noexcept;
  BroadPhase& operator=(BroadPhase&&) noexcept;
  ///@}
  BroadPhase(const BroadPhase&) = delete;
  BroadPhase& operator=(const BroadPhase&) = delete;

  /// Starts a frame with these boxes (index i = boxes[i]); optional filter bits, one per box.
  void update(std::span<const Aabb> boxes, FilterArrays filter = {});
  /// Starts a frame with boxes as six arrays.
  void update(const AabbArrays& boxes, FilterArrays filter = {});
  /// Starts a frame with boxes in device memory (the CPU backends download them first).
  void update(const DeviceAabbArrays& boxes, DeviceFilterArrays filter = {});
  /// The same with the boxes as Aabb records in device memory, read where they lie.
  void update(rsw::DeviceSpan<const Aabb> boxes, DeviceFilterArrays filter = {});

  /// The overlapping pairs of this frame's boxes, in host memory (the GPU backend downloads
  /// them on the first call after update()).
  PairView find_pairs();
  /// The same pairs in device memory (the CPU backends upload them on the first call).
  DevicePairView find_pairs_device();

  /// With BroadPhaseOptions::group_by_world, where each world's pairs lie in find_pairs()
  /// (and find_pairs_device()): one entry per world id from 0 to the largest of the frame's
  /// valid boxes, and one more; world w's pairs are [offsets[w], offsets[w + 1]), empty for an
  /// id no box has. (Ids are read directly: a frame whose largest id is 10^6 has 10^6 + 2
  /// offsets.) The pairs of two kAllWorlds boxes follow offsets.back(). Without world ids every
  /// box is in world 0. Empty without group_by_world, and before the first frame. Valid until
  /// the next update(); the GPU backend downloads them on the first call after update().
  std::span<const std::uint32_t> world_pair_offsets();
  /// The same offsets in device memory (the CPU backends upload them on the first call).
  rsw::DeviceSpan<const std::uint32_t> world_pair_offsets_device();

  /// Region queries against the boxes of the last update(), read from the arrays it was given
  /// (which must still hold them, and its filter bits): every valid box overlapping each
  /// region whose category options.mask admits (and in options.world, or kAllWorlds), closed
  /// boxes as for pairs, each (region, box) once, sorted by (query, box). A region that is not
  /// a valid box is an rsw::Error naming it. The boxes' tree is built at the first query after
  /// an update(). Empty before the first frame. Valid until the next query or update().
  std::span<const BoxQueryHit> query(std::span<const Aabb> regions,
                                     const QueryOptions& options = {});
  /// The same for regions in device memory, the hits in device memory.
  rsw::DeviceSpan<const BoxQueryHit> query(rsw::DeviceSpan<const Aabb> regions,
                                           const QueryOptions& options = {});
  /// Ray queries against the same boxes, as World::raycast: each ray's nearest box (the lowest
  /// index among boxes entered at the same t), or with options.all_hits every box along it,
  /// sorted by (ray, t, box). A ray that cannot be cast is an rsw::Error naming it. Valid until
  /// the next raycast or update().
  std::span<const BoxRayHit> raycast(std::span<const Ray> rays, const RaycastOptions& options = {});
  /// The same for rays in device memory, the hits in device memory.
  rsw::DeviceSpan<const BoxRayHit> raycast(rsw::DeviceSpan<const Ray> rays,
                                           const RaycastOptions& options = {});

  /// Statistics of the last frame.
  const BroadPhaseStats& stats() const noexcept;
  /// The options in force.
  const BroadPhaseOptions& options() const noexcept;
  /// Switches backend, sort or axis between frames; the sorted order carries over.
  void set_options(const BroadPhaseOptions& options);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::physics
