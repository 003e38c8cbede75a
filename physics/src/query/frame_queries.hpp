// Region and ray queries against a BroadPhase frame's boxes (BroadPhase::query and raycast):
// the boxes read from the arrays the frame was given into a box tree (box_tree.hpp), built at
// the first query after each frame, on the GPU after a frame of the GPU backend and on the CPU
// otherwise.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "../broad_phase/sweep_backend.hpp"
#include "device_box_tree.hpp"
#include "host_box_tree.hpp"

namespace rsw::physics::detail {

class FrameQueries {
 public:
  /// The frame's boxes, as the frame had them; `on_device`: the GPU answers, on `stream`.
  void set_frame(const BoxSource& boxes, bool on_device, StreamHandle stream);
  /// No frame: queries answer nothing.
  void clear() { have_frame_ = false; }

  std::span<const BoxQueryHit> query(std::span<const Aabb> regions, const QueryOptions& options);
  DeviceSpan<const BoxQueryHit> query(DeviceSpan<const Aabb> regions, const QueryOptions& options);
  std::span<const BoxRayHit> raycast(std::span<const Ray> rays, const RaycastOptions& options);
  DeviceSpan<const BoxRayHit> raycast(DeviceSpan<const Ray> rays, const RaycastOptions& options);

 private:
  // The frame's boxes, categories and worlds on the host (boxes_ when not the user's AoS).
  std::span<const Aabb> host_boxes();
  TreeView host_tree();
  LeafFilter host_filter(std::uint32_t mask, std::uint32_t world) const;
  // The device tree, built from the frame's boxes (uploaded when they were on the host).
  void ready_device_tree();
  LeafFilter device_filter(std::uint32_t mask, std::uint32_t world) const;
  // Whether the frame's boxes and filter bits were handed over in device memory.
  bool on_device_arrays() const {
    return frame_.form == BoxSource::Form::Device || frame_.form == BoxSource::Form::DeviceAos;
  }

  BoxSource frame_;
  bool have_frame_ = false;
  bool on_device_ = false;
  bool tree_built_ = false;
  // The CPU's copies and tree.
  std::vector<Aabb> boxes_;
  std::vector<std::uint32_t> categories_;
  std::vector<std::uint32_t> worlds_;           // downloaded from device arrays
  std::span<const std::uint32_t> host_worlds_;  // the frame's worlds on the host (or none)
  HostBoxTree host_tree_;
  std::vector<Pair> pairs_;
  std::vector<SlotHit> slot_hits_;
  std::vector<BoxQueryHit> query_hits_;
  std::vector<BoxRayHit> ray_hits_;
  DeviceBuffer<BoxQueryHit> device_query_hits_;  // uploaded, for the CPU's device forms
  DeviceBuffer<BoxRayHit> device_ray_hits_;
  // The GPU's copies (of host arrays) and tree.
  DeviceBuffer<Aabb> device_boxes_;
  DeviceBuffer<std::uint32_t> device_categories_;
  DeviceBuffer<std::uint32_t> device_worlds_;
  DeviceBoxTree device_tree_;
  DeviceBuffer<Aabb> uploaded_regions_;
  DeviceBuffer<Ray> uploaded_rays_;
  std::vector<QueryHit> downloaded_query_hits_;
  std::vector<RayHit> downloaded_ray_hits_;
};

}  // namespace rsw::physics::detail
