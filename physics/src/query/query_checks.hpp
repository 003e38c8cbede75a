// The checks a region or ray query makes of its arguments, alike for World and BroadPhase:
// regions that are valid boxes, rays that can be cast, a world id in range; and World's of the
// boxes it is given. `what` names the call in the messages ("World::raycast").
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rsw/engine/error.hpp"
#include "rsw/physics/aabb.hpp"

namespace rsw::physics::detail {

/// The error for boxes[index], which is not a valid box ("<what>: box 2 has min > max on y").
Error invalid_box(std::string_view what, std::size_t index, const Aabb& box);
/// Throws invalid_box for the first box that is not valid.
void check_boxes(std::string_view what, std::span<const Aabb> boxes);

/// The error for regions[index], which is not a valid box.
Error invalid_region(std::string_view what, std::size_t index, const Aabb& region);
/// The error for rays[index], which cannot be cast.
Error invalid_ray(std::string_view what, std::size_t index, const Ray& ray);

/// Throws invalid_region for the first region that is not a valid box.
void check_regions(std::string_view what, std::span<const Aabb> regions);
/// Throws invalid_ray for the first ray that cannot be cast.
void check_rays(std::string_view what, std::span<const Ray> rays);
/// Throws unless `world` is a world id or kAllWorlds.
void check_query_world(std::string_view what, std::uint32_t world);

}  // namespace rsw::physics::detail
