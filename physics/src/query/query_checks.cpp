#include "query_checks.hpp"

#include "../broad_phase/host_boxes.hpp"
#include "box_tree.hpp"

namespace rsw::physics::detail {
namespace {

std::string text_of(const Vec3& v) {
  return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

}  // namespace

Error invalid_box(std::string_view what, std::size_t index, const Aabb& box) {
  const TreeBounds bounds = bounds_of(box);
  return Error(ErrorKind::InvalidArgument,
               std::string(what) + ": " + describe_invalid_box(index, bounds.low, bounds.high));
}

void check_boxes(std::string_view what, std::span<const Aabb> boxes) {
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const TreeBounds bounds = bounds_of(boxes[i]);
    if (!box_is_valid(bounds.low, bounds.high)) throw invalid_box(what, i, boxes[i]);
  }
}

Error invalid_region(std::string_view what, std::size_t index, const Aabb& region) {
  return invalid_box(std::string(what) + ": regions", index, region);
}

Error invalid_ray(std::string_view what, std::size_t index, const Ray& ray) {
  return Error(ErrorKind::InvalidArgument,
               std::string(what) + ": rays[" + std::to_string(index) + "] cannot be cast: origin " +
                   text_of(ray.origin) + ", direction " + text_of(ray.direction) + ", max_t " +
                   std::to_string(ray.max_t) +
                   " (origin and direction must be finite, max_t >= 0)");
}

void check_regions(std::string_view what, std::span<const Aabb> regions) {
  check_boxes(std::string(what) + ": regions", regions);
}

void check_rays(std::string_view what, std::span<const Ray> rays) {
  for (std::size_t i = 0; i < rays.size(); ++i) {
    if (!ray_is_valid(rays[i])) throw invalid_ray(what, i, rays[i]);
  }
}

void check_query_world(std::string_view what, std::uint32_t world) {
  if (is_world(world)) return;
  throw Error(ErrorKind::InvalidArgument, std::string(what) + ": world " + std::to_string(world) +
                                              " is past kMaxWorld (" + std::to_string(kMaxWorld) +
                                              ") and not kAllWorlds");
}

}  // namespace rsw::physics::detail
