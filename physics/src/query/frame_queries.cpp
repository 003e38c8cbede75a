#include "frame_queries.hpp"

#include <algorithm>

#include "query_checks.hpp"
#include "rsw/engine/memory.hpp"

namespace rsw::physics::detail {
namespace {

// `count` values downloaded from device memory (none when the span is empty), waiting.
template <class T>
void download(DeviceSpan<const T> values, std::vector<T>& out, StreamHandle stream) {
  resize_host(out, values.size, "a query's copy of the frame");
  if (values.size > 0)
    rsw::detail::copy_device_to_host(out.data(), values.data, values.size_bytes(), stream);
  synchronize(stream);
}

}  // namespace

void FrameQueries::set_frame(const BoxSource& boxes, bool on_device, StreamHandle stream) {
  frame_ = boxes;
  frame_.stream = stream;
  have_frame_ = true;
  on_device_ = on_device;
  tree_built_ = false;
}

std::span<const Aabb> FrameQueries::host_boxes() {
  const std::size_t count = frame_.count;
  switch (frame_.form) {
    case BoxSource::Form::HostAos: return frame_.host_aos;
    case BoxSource::Form::HostSoa: {
      resize_host(boxes_, count, "a query's copy of the boxes");
      const AabbArrays& soa = frame_.host_soa;
      for (std::size_t i = 0; i < count; ++i) {
        boxes_[i] = {{soa.min_x[i], soa.min_y[i], soa.min_z[i]},
                     {soa.max_x[i], soa.max_y[i], soa.max_z[i]}};
      }
      return boxes_;
    }
    case BoxSource::Form::DeviceAos:
      download(frame_.device_aos, boxes_, frame_.stream);
      return boxes_;
    case BoxSource::Form::Device: break;
  }
  const DeviceAabbArrays& device = frame_.device;
  std::vector<float> axis[6];
  const DeviceSpan<const float> arrays[6] = {device.min_x, device.min_y, device.min_z,
                                             device.max_x, device.max_y, device.max_z};
  for (int a = 0; a < 6; ++a)
    download(arrays[a], axis[a], frame_.stream);
  resize_host(boxes_, count, "a query's copy of the boxes");
  for (std::size_t i = 0; i < count; ++i)
    boxes_[i] = {{axis[0][i], axis[1][i], axis[2][i]}, {axis[3][i], axis[4][i], axis[5][i]}};
  return boxes_;
}

TreeView FrameQueries::host_tree() {
  if (tree_built_) return host_tree_.view();
  const std::span<const Aabb> boxes = host_boxes();
  std::span<const std::uint32_t> categories = frame_.host_filter.categories;
  host_worlds_ = frame_.host_filter.worlds;
  if (on_device_arrays()) {
    download(frame_.device_filter.categories, categories_, frame_.stream);
    download(frame_.device_filter.worlds, worlds_, frame_.stream);
    categories = categories_;
    host_worlds_ = worlds_;
  }
  if (categories.empty()) {
    categories_.assign(boxes.size(), 1u);
    categories = categories_;
  }
  host_tree_.build(boxes, categories);
  tree_built_ = true;
  return host_tree_.view();
}

LeafFilter FrameQueries::host_filter(std::uint32_t mask, std::uint32_t world) const {
  return {mask, world, host_worlds_.empty() ? nullptr : host_worlds_.data()};
}

void FrameQueries::ready_device_tree() {
  if (tree_built_) return;
  const auto count = static_cast<std::uint32_t>(frame_.count);
  const StreamHandle stream = frame_.stream;
  const DeviceFilterArrays& device_filter = frame_.device_filter;
  const std::uint32_t* device_categories =
      device_filter.categories.size > 0 ? device_filter.categories.data : nullptr;
  if (frame_.form == BoxSource::Form::Device) {
    device_tree_.build(frame_.device, device_categories, count, stream);
  } else if (frame_.form == BoxSource::Form::DeviceAos) {
    device_tree_.build(frame_.device_aos.data, nullptr, device_categories, count, stream);
  } else {
    device_boxes_.upload(host_boxes(), stream);
    const FilterArrays& filter = frame_.host_filter;
    device_categories_.upload(filter.categories, stream);
    device_worlds_.upload(filter.worlds, stream);
    device_tree_.build(device_boxes_.data(), nullptr,
                       filter.categories.empty() ? nullptr : device_categories_.data(), count,
                       stream);
    synchronize(stream);  // the host copies may be rewritten by the next query
  }
  tree_built_ = true;
}

LeafFilter FrameQueries::device_filter(std::uint32_t mask, std::uint32_t world) const {
  const std::uint32_t* worlds = nullptr;
  if (on_device_arrays()) {
    if (frame_.device_filter.worlds.size > 0) worlds = frame_.device_filter.worlds.data;
  } else if (!frame_.host_filter.worlds.empty()) {
    worlds = device_worlds_.data();
  }
  return {mask, world, worlds};
}

std::span<const BoxQueryHit> FrameQueries::query(std::span<const Aabb> regions,
                                                 const QueryOptions& options) {
  check_regions("BroadPhase::query", regions);
  check_query_world("BroadPhase::query", options.world);
  query_hits_.clear();
  if (!have_frame_) return {};
  if (on_device_) {
    uploaded_regions_.upload(regions, frame_.stream);
    ready_device_tree();
    const DeviceSpan<const QueryHit> hits =
        device_tree_.overlap(uploaded_regions_.span(), device_filter(options.mask, options.world),
                             nullptr, frame_.stream);
    download(hits, downloaded_query_hits_, frame_.stream);
    resize_host(query_hits_, hits.size, "the query's hits");
    std::ranges::transform(downloaded_query_hits_, query_hits_.begin(), [](const QueryHit& hit) {
      return BoxQueryHit{hit.query, hit.proxy.index};
    });
    return query_hits_;
  }
  const TreeView tree = host_tree();  // first: the filter reads the frame's worlds it finds
  overlap_regions(tree, regions, host_filter(options.mask, options.world), pairs_);
  resize_host(query_hits_, pairs_.size(), "the query's hits");
  std::ranges::transform(pairs_, query_hits_.begin(), [](const Pair& p) {
    return BoxQueryHit{p.a, p.b};
  });
  return query_hits_;
}

DeviceSpan<const BoxQueryHit> FrameQueries::query(DeviceSpan<const Aabb> regions,
                                                  const QueryOptions& options) {
  check_query_world("BroadPhase::query", options.world);
  if (!on_device_ || !have_frame_) {
    std::vector<Aabb> host;
    download(regions, host, frame_.stream);
    const std::span<const BoxQueryHit> hits = query(host, options);
    device_query_hits_.upload(hits, frame_.stream);
    synchronize(frame_.stream);
    return device_query_hits_.span();
  }
  if (const auto first = device_tree_.first_invalid(regions, frame_.stream)) {
    Aabb region;
    rsw::detail::copy_device_to_host(&region, regions.data + *first, sizeof(Aabb), frame_.stream);
    synchronize(frame_.stream);
    throw invalid_region("BroadPhase::query", *first, region);
  }
  ready_device_tree();
  const DeviceSpan<const QueryHit> hits = device_tree_.overlap(
      regions, device_filter(options.mask, options.world), nullptr, frame_.stream);
  const DeviceSpan<const BoxQueryHit> named = device_tree_.box_hits(hits, frame_.stream);
  if (frame_.stream == nullptr) synchronize(nullptr);
  return named;
}

std::span<const BoxRayHit> FrameQueries::raycast(std::span<const Ray> rays,
                                                 const RaycastOptions& options) {
  check_rays("BroadPhase::raycast", rays);
  check_query_world("BroadPhase::raycast", options.world);
  ray_hits_.clear();
  if (!have_frame_) return {};
  if (on_device_) {
    uploaded_rays_.upload(rays, frame_.stream);
    ready_device_tree();
    const DeviceSpan<const RayHit> hits =
        device_tree_.cast(uploaded_rays_.span(), device_filter(options.mask, options.world),
                          options.all_hits, nullptr, frame_.stream);
    download(hits, downloaded_ray_hits_, frame_.stream);
    resize_host(ray_hits_, hits.size, "the rays' hits");
    std::ranges::transform(downloaded_ray_hits_, ray_hits_.begin(), [](const RayHit& hit) {
      return BoxRayHit{hit.ray, hit.proxy.index, hit.t};
    });
    return ray_hits_;
  }
  const TreeView tree = host_tree();  // first: the filter reads the frame's worlds it finds
  cast_rays(tree, rays, host_filter(options.mask, options.world), options.all_hits, slot_hits_);
  resize_host(ray_hits_, slot_hits_.size(), "the rays' hits");
  std::ranges::transform(slot_hits_, ray_hits_.begin(), [](const SlotHit& hit) {
    return BoxRayHit{hit.ray, hit.slot, hit.t};
  });
  return ray_hits_;
}

DeviceSpan<const BoxRayHit> FrameQueries::raycast(DeviceSpan<const Ray> rays,
                                                  const RaycastOptions& options) {
  check_query_world("BroadPhase::raycast", options.world);
  if (!on_device_ || !have_frame_) {
    std::vector<Ray> host;
    download(rays, host, frame_.stream);
    const std::span<const BoxRayHit> hits = raycast(host, options);
    device_ray_hits_.upload(hits, frame_.stream);
    synchronize(frame_.stream);
    return device_ray_hits_.span();
  }
  if (const auto first = device_tree_.first_invalid(rays, frame_.stream)) {
    Ray ray;
    rsw::detail::copy_device_to_host(&ray, rays.data + *first, sizeof(Ray), frame_.stream);
    synchronize(frame_.stream);
    throw invalid_ray("BroadPhase::raycast", *first, ray);
  }
  ready_device_tree();
  const DeviceSpan<const RayHit> hits = device_tree_.cast(
      rays, device_filter(options.mask, options.world), options.all_hits, nullptr, frame_.stream);
  const DeviceSpan<const BoxRayHit> named = device_tree_.box_hits(hits, frame_.stream);
  if (frame_.stream == nullptr) synchronize(nullptr);
  return named;
}

}  // namespace rsw::physics::detail
