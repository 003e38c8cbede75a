// For the BroadPhase query tests: a frame's boxes (some invalid, some with filter bits and
// worlds), the oracle that tests every box against each region and ray, and random regions
// and rays of every awkward kind.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "rsw/physics/broad_phase.hpp"
#include "world_checks.hpp"

namespace rsw::test {

/// A frame's boxes and filter bits (empty filter arrays: the defaults).
struct QueryFrame {
  std::vector<physics::Aabb> boxes;
  std::vector<std::uint32_t> categories;
  std::vector<std::uint32_t> worlds;

  physics::FilterArrays filter() const { return {categories, {}, worlds}; }

  bool valid(std::size_t i) const { return WorldModel::valid(boxes[i]); }
  std::uint32_t category(std::size_t i) const { return categories.empty() ? 1u : categories[i]; }
  bool in_world(std::size_t i, std::uint32_t world) const {
    const std::uint32_t own = worlds.empty() ? 0u : worlds[i];
    return world == physics::kAllWorlds || own == world || own == physics::kAllWorlds;
  }
};

/// `count` boxes on a quarter lattice (faces touching) in a cube of side `side`; one in 50
/// invalid (NaN or inverted); with `filters`, categories and worlds of a few kinds.
inline QueryFrame random_query_frame(std::mt19937& generator, std::size_t count, float side,
                                     bool filters) {
  QueryFrame frame;
  std::uniform_real_distribution<float> position(0, side);
  std::uniform_int_distribution<int> size(1, 4);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 0; i < count; ++i) {
    const physics::Vec3 low{std::floor(position(generator) * 4) / 4,
                            std::floor(position(generator) * 4) / 4, position(generator)};
    const float edge = 0.5f * static_cast<float>(size(generator));
    physics::Aabb box{low, {low.x + edge, low.y + edge, low.z + edge}};
    const int kind = std::uniform_int_distribution<int>(0, 99)(generator);
    if (kind == 0) box.min.y = nan;
    if (kind == 1) box.max.x = box.min.x - 1;
    frame.boxes.push_back(box);
  }
  if (filters) {
    for (std::size_t i = 0; i < count; ++i) {
      frame.categories.push_back(1u << std::uniform_int_distribution<int>(0, 2)(generator));
      const int world = std::uniform_int_distribution<int>(0, 3)(generator);
      frame.worlds.push_back(world == 3 ? physics::kAllWorlds : static_cast<std::uint32_t>(world));
    }
  }
  return frame;
}

/// Every valid box overlapping each region that the options admit, sorted.
inline std::vector<physics::BoxQueryHit> oracle_box_query(const QueryFrame& frame,
                                                          std::span<const physics::Aabb> regions,
                                                          const physics::QueryOptions& options) {
  std::vector<physics::BoxQueryHit> hits;
  for (std::uint32_t q = 0; q < regions.size(); ++q) {
    for (std::uint32_t i = 0; i < frame.boxes.size(); ++i) {
      if (frame.valid(i) && physics::overlaps(regions[q], frame.boxes[i]) &&
          (frame.category(i) & options.mask) != 0 && frame.in_world(i, options.world)) {
        hits.push_back({q, i});
      }
    }
  }
  return hits;
}

/// Each ray's nearest valid box (lowest index among equal t) that the options admit, or every
/// one sorted by (ray, t, box).
inline std::vector<physics::BoxRayHit> oracle_box_raycast(const QueryFrame& frame,
                                                          std::span<const physics::Ray> rays,
                                                          const physics::RaycastOptions& options) {
  std::vector<physics::BoxRayHit> hits;
  for (std::uint32_t r = 0; r < rays.size(); ++r) {
    std::vector<physics::BoxRayHit> ray_hits;
    for (std::uint32_t i = 0; i < frame.boxes.size(); ++i) {
      if (!frame.valid(i) || (frame.category(i) & options.mask) == 0 ||
          !frame.in_world(i, options.world)) {
        continue;
      }
      if (const std::optional<float> t = oracle_entry(rays[r], frame.boxes[i]))
        ray_hits.push_back({r, i, *t});
    }
    std::ranges::sort(ray_hits, [](const physics::BoxRayHit& a, const physics::BoxRayHit& b) {
      return a.t != b.t ? a.t < b.t : a.box < b.box;
    });
    if (!options.all_hits && ray_hits.size() > 1) ray_hits.resize(1);
    hits.insert(hits.end(), ray_hits.begin(), ray_hits.end());
  }
  return hits;
}

/// Ray hits compared bit for bit.
inline bool same_box_hits(std::span<const physics::BoxRayHit> a,
                          std::span<const physics::BoxRayHit> b) {
  return std::ranges::equal(a, b, [](const physics::BoxRayHit& x, const physics::BoxRayHit& y) {
    return x.ray == y.ray && x.box == y.box &&
           std::bit_cast<std::uint32_t>(x.t) == std::bit_cast<std::uint32_t>(y.t);
  });
}

/// `count` regions (lattice boxes, points, one over everything) and rays (from anywhere,
/// from box corners, along the lattice's planes, a zero direction; of length 0 to infinite).
inline std::vector<physics::Aabb> random_regions(std::mt19937& generator, std::size_t count,
                                                 float side) {
  std::uniform_real_distribution<float> position(-1, side + 1);
  std::vector<physics::Aabb> regions(count);
  for (physics::Aabb& region : regions) {
    const physics::Vec3 low{std::floor(position(generator) * 4) / 4, position(generator),
                            position(generator)};
    const float edge = std::uniform_real_distribution<float>(0, 3)(generator);
    region = {low, {low.x + edge, low.y + edge, low.z + edge}};
    const int kind = std::uniform_int_distribution<int>(0, 19)(generator);
    if (kind == 0) region.max = region.min;
    if (kind == 1) region = {{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
  }
  return regions;
}

inline std::vector<physics::Ray> random_rays(std::mt19937& generator, const QueryFrame& frame,
                                             std::size_t count, float side) {
  std::uniform_real_distribution<float> position(-2, side + 2);
  std::uniform_real_distribution<float> unit(-1, 1);
  std::uniform_int_distribution<int> axis_step(-1, 1);
  const float lengths[] = {0.0f, 0.5f, 3.0f, 2 * side, std::numeric_limits<float>::infinity()};
  std::vector<physics::Ray> rays(count);
  for (physics::Ray& ray : rays) {
    const int kind = std::uniform_int_distribution<int>(0, 9)(generator);
    ray.origin = {position(generator), position(generator), position(generator)};
    ray.direction = {unit(generator), unit(generator), unit(generator)};
    if (kind <= 2 && !frame.boxes.empty()) {
      ray.origin = frame
                       .boxes[std::uniform_int_distribution<std::size_t>(
                           0, frame.boxes.size() - 1)(generator)]
                       .min;
    }
    if (kind >= 3 && kind <= 5) {
      ray.origin = {std::floor(ray.origin.x * 4) / 4, std::floor(ray.origin.y * 4) / 4,
                    ray.origin.z};
      ray.direction = {static_cast<float>(axis_step(generator)),
                       static_cast<float>(axis_step(generator)),
                       static_cast<float>(axis_step(generator))};
    }
    if (kind == 6) ray.direction = {};
    if (std::isnan(ray.origin.x) || std::isnan(ray.origin.y) || std::isnan(ray.origin.z))
      ray.origin = {0, 0, 0};  // the corner of a NaN box
    ray.max_t = lengths[std::uniform_int_distribution<int>(0, 4)(generator)];
  }
  return rays;
}

}  // namespace rsw::test
