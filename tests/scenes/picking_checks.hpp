// Picking in a scene checked against brute force over the boxes the scene reports (box_of):
// the nearest box along each ray from the camera, the objects overlapping a picked one, the
// objects in a region. For the CPU and GPU scene tests alike.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../physics/world_checks.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/render/orbit_camera.hpp"
#include "rsw/scenes/scene.hpp"

namespace rsw::scenes::testing {

/// How a scene's picking relates to its boxes as drawn.
struct PickRules {
  /// Objects past stats().objects that picking knows (the chairs' ground: 1).
  std::uint32_t extra_objects = 0;
  /// Objects pair only within groups of this many (the worlds scene's worlds); 0: all pair.
  std::uint32_t group = 0;
  /// Fixed geometry (terrain) may hide boxes: a ray that picks nothing is not checked.
  bool terrain_hides = false;
  /// Picking works in another space than drawing (the worlds' tiles): boxes within this
  /// distance of a ray's or a region's edge may be decided either way, and t may differ by
  /// this much.
  float slack = 0;
};

/// Box b grown by `slack` on every side (shrunk for a negative one).
inline physics::Aabb grown(const physics::Aabb& b, float slack) {
  return {{b.min.x - slack, b.min.y - slack, b.min.z - slack},
          {b.max.x + slack, b.max.y + slack, b.max.z + slack}};
}

/// Where ray r enters box b grown by `slack`, by the slab test of physics::Ray (the physics
/// tests' oracle), if it does.
inline std::optional<float> enters(const physics::Ray& r, const physics::Aabb& b, float slack) {
  return rsw::test::oracle_entry(r, grown(b, slack));
}

/// The scene's boxes as drawn, by object number.
inline std::vector<physics::Aabb> boxes_of(Scene& scene, const PickRules& rules) {
  const auto objects = static_cast<std::uint32_t>(scene.stats().objects) + rules.extra_objects;
  std::vector<physics::Aabb> boxes(objects);
  for (std::uint32_t object = 0; object < objects; ++object)
    boxes[object] = scene.box_of(object);
  return boxes;
}

/// The objects whose boxes overlap `region`, rising: those that surely do (`sure`, the box
/// shrunk by the slack) and those that may (`maybe`, grown by it).
struct Overlapping {
  std::vector<std::uint32_t> sure, maybe;
};
inline Overlapping overlapping(const std::vector<physics::Aabb>& boxes, const physics::Aabb& region,
                               float slack) {
  Overlapping found;
  for (std::uint32_t object = 0; object < boxes.size(); ++object) {
    if (physics::overlaps(grown(boxes[object], -slack), region)) found.sure.push_back(object);
    if (physics::overlaps(grown(boxes[object], slack), region)) found.maybe.push_back(object);
  }
  return found;
}

/// Whether `got` holds every object of `range.sure` and only objects of `range.maybe`.
inline ::testing::AssertionResult within(const std::vector<std::uint32_t>& got,
                                         const Overlapping& range) {
  if (!std::ranges::is_sorted(got) || std::ranges::adjacent_find(got) != got.end())
    return ::testing::AssertionFailure() << "not rising and distinct";
  for (const std::uint32_t object : range.sure) {
    if (!std::ranges::binary_search(got, object))
      return ::testing::AssertionFailure() << "object " << object << " is missing";
  }
  for (const std::uint32_t object : got) {
    if (!std::ranges::binary_search(range.maybe, object))
      return ::testing::AssertionFailure() << "object " << object << " does not belong";
  }
  return ::testing::AssertionSuccess();
}

/// Checks pick(), partners() and objects_in() of `scene` (stepped at least once) against
/// brute force: rays through a grid of pixels of the scene's camera, the partners of every
/// object picked, and random regions around picked objects. Returns the rays that hit.
inline int check_picking(Scene& scene, const PickRules& rules, std::uint32_t seed) {
  const std::vector<physics::Aabb> boxes = boxes_of(scene, rules);
  const render::OrbitCamera camera = scene.camera();
  constexpr int kWidth = 320;
  constexpr int kHeight = 240;
  int hits = 0;
  std::mt19937 generator(seed);
  for (int row = 0; row < 9; ++row) {
    for (int column = 0; column < 13; ++column) {
      const float x = (static_cast<float>(column) + 0.5f) * kWidth / 13;
      const float y = (static_cast<float>(row) + 0.5f) * kHeight / 9;
      const render::CameraRay camera_ray = camera.ray_through(x, y, kWidth, kHeight);
      const physics::Ray ray{
          {camera_ray.origin[0], camera_ray.origin[1], camera_ray.origin[2]},
          {camera_ray.direction[0], camera_ray.direction[1], camera_ray.direction[2]}};
      const std::optional<ScenePick> picked = scene.pick(camera_ray);
      // Brute force: the nearest box, the lowest number among those entered at its t.
      std::optional<ScenePick> nearest;
      for (std::uint32_t object = 0; object < boxes.size(); ++object) {
        const std::optional<float> t = enters(ray, boxes[object], 0);
        if (t && (!nearest || *t < nearest->t)) nearest = ScenePick{object, *t};
      }
      const std::string at = "pixel " + std::to_string(x) + ", " + std::to_string(y);
      if (!picked) {
        if (rules.terrain_hides) continue;
        if (rules.slack > 0 && nearest) {
          // Only a box the ray grazes within the slack may be missed.
          EXPECT_FALSE(enters(ray, boxes[nearest->object], -rules.slack)) << at;
        } else {
          EXPECT_FALSE(nearest) << at << ": missed " << scene.object_name(nearest->object);
        }
        continue;
      }
      ++hits;
      if (picked->object >= boxes.size() || !nearest) {
        ADD_FAILURE() << at << ": picked " << picked->object << ", brute force "
                      << (nearest ? scene.object_name(nearest->object) : "nothing");
        continue;
      }
      if (rules.slack == 0) {
        EXPECT_EQ(picked->object, nearest->object) << at;
        EXPECT_EQ(picked->t, nearest->t) << at;
      } else {
        EXPECT_NEAR(picked->t, nearest->t, rules.slack * 100) << at;
        EXPECT_TRUE(enters(ray, boxes[picked->object], rules.slack)) << at;
      }

      // Its partners: every other box overlapping its box (in its group).
      const physics::Aabb& box = boxes[picked->object];
      Overlapping expected = overlapping(boxes, box, rules.slack);
      const auto partner = [&](std::uint32_t object) {
        if (object == picked->object) return false;
        return rules.group == 0 || object / rules.group == picked->object / rules.group;
      };
      std::erase_if(expected.sure, [&](std::uint32_t object) { return !partner(object); });
      std::erase_if(expected.maybe, [&](std::uint32_t object) { return !partner(object); });
      EXPECT_TRUE(within(scene.partners(picked->object), expected))
          << at << ": partners of " << scene.object_name(picked->object);

      // A region around the picked box, of random size.
      std::uniform_real_distribution<float> reach(0.0f, 3.0f);
      const physics::Aabb region{{box.min.x - reach(generator), box.min.y - reach(generator),
                                  box.min.z - reach(generator)},
                                 {box.max.x + reach(generator), box.max.y + reach(generator),
                                  box.max.z + reach(generator)}};
      EXPECT_TRUE(within(scene.objects_in(region), overlapping(boxes, region, rules.slack)))
          << at << ": a region around " << scene.object_name(picked->object);
    }
  }
  return hits;
}

}  // namespace rsw::scenes::testing
