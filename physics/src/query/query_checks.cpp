#include "query_checks.hpp"

#include "../broad_phase/frame_plan.hpp"
#include "../broad_phase/host_boxes.hpp"
#include "../world/static_cells.hpp"
#include "box_tree.hpp"

namespace rsw::physics::detail {
namespace {

std::string text_of(const Vec3& v) {
  return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

}  // namespace

Error invalid_region(std::string_view what, std::size_t index, const Aabb& region) {
  float low[3];
  float high[3];
  corners(region, low, high);
  return Error(ErrorKind::InvalidArgument,
               std::string(what) + ": regions: " + describe_invalid_box(index, low, high));
}

Error invalid_ray(std::string_view what, std::size_t index, const Ray& ray) {
  return Error(ErrorKind::InvalidArgument,
               std::string(what) + ": rays[" + std::to_string(index) + "] cannot be cast: origin " +
                   text_of(ray.origin) + ", direction " + text_of(ray.direction) + ", max_t " +
                   std::to_string(ray.max_t) +
                   " (origin and direction must be finite, max_t >= 0)");
}

void check_regions(std::string_view what, std::span<const Aabb> regions) {
  for (std::size_t i = 0; i < regions.size(); ++i) {
    float low[3];
    float high[3];
    corners(regions[i], low, high);
    if (!box_is_valid(low, high)) throw invalid_region(what, i, regions[i]);
  }
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
