#include "rsw/workloads/box_scenes.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace rsw::workloads {

std::span<const BoxScene> all_box_scenes() {
  static constexpr BoxScene kAll[] = {
      BoxScene::Uniform,      BoxScene::Clustered,  BoxScene::Mixed,    BoxScene::GiantBox,
      BoxScene::TouchingGrid, BoxScene::Degenerate, BoxScene::Hotspots, BoxScene::MixedSizes};
  return kAll;
}

std::string to_string(BoxScene scene) {
  switch (scene) {
    case BoxScene::Uniform: return "Uniform";
    case BoxScene::Clustered: return "Clustered";
    case BoxScene::Mixed: return "Mixed";
    case BoxScene::GiantBox: return "GiantBox";
    case BoxScene::TouchingGrid: return "TouchingGrid";
    case BoxScene::Degenerate: return "Degenerate";
    case BoxScene::Hotspots: return "Hotspots";
    case BoxScene::MixedSizes: return "MixedSizes";
  }
  return "Unknown";
}

std::vector<physics::Aabb> make_boxes(std::size_t count, BoxScene scene, std::uint32_t seed,
                                      double pairs_per_box) {
  std::mt19937 generator(seed);
  const double volume = 8.0 * static_cast<double>(count) / (2.0 * std::max(pairs_per_box, 0.01));
  const float side = static_cast<float>(std::cbrt(std::max(volume, 1.0)));
  std::uniform_real_distribution<float> position(0.0f, side);
  std::vector<physics::Aabb> boxes(count);
  const auto cube = [](float x, float y, float z, float size) {
    return physics::Aabb{{x, y, z}, {x + size, y + size, z + size}};
  };
  switch (scene) {
    case BoxScene::Uniform:
    case BoxScene::Mixed:
    case BoxScene::GiantBox:
    case BoxScene::Hotspots:
      for (auto& box : boxes)
        box = cube(position(generator), position(generator), position(generator), 1.0f);
      if (scene == BoxScene::Mixed) {
        std::uniform_real_distribution<float> scale(10.0f, 100.0f);
        for (std::size_t i = 0; i < count; i += 1000) {
          boxes[i] = cube(boxes[i].min.x, boxes[i].min.y, boxes[i].min.z, scale(generator));
        }
      }
      if (scene == BoxScene::GiantBox && count > 0) {
        boxes[count / 2] = {{-1, -1, -1}, {side + 2, side + 2, side + 2}};
      }
      if (scene == BoxScene::Hotspots) {
        // Every 100th box into a pile of side 4 at one corner or the other: hundreds of
        // neighbours each, where the rest of the scene has a few.
        std::uniform_real_distribution<float> pile(0.0f, 4.0f);
        for (std::size_t i = 0; i < count; i += 100) {
          const float corner = (i / 100) % 2 == 0 ? 0.0f : std::max(side - 5.0f, 0.0f);
          boxes[i] = cube(corner + pile(generator), corner + pile(generator),
                          corner + pile(generator), 1.0f);
        }
      }
      break;
    case BoxScene::Clustered: {
      std::normal_distribution<float> spread(0.0f, side / 20.0f);
      std::vector<physics::Vec3> centres(8);
      for (auto& centre : centres)
        centre = {position(generator), position(generator), position(generator)};
      for (std::size_t i = 0; i < count; ++i) {
        const physics::Vec3& c = centres[i % centres.size()];
        boxes[i] =
            cube(c.x + spread(generator), c.y + spread(generator), c.z + spread(generator), 1.0f);
      }
      break;
    }
    case BoxScene::TouchingGrid: {
      const auto per_side =
          static_cast<std::size_t>(std::ceil(std::cbrt(static_cast<double>(count))));
      for (std::size_t i = 0; i < count; ++i) {
        const auto x = static_cast<float>(i % per_side);
        const auto y = static_cast<float>(i / per_side % per_side);
        const auto z = static_cast<float>(i / (per_side * per_side));
        boxes[i] = cube(x, y, z, 1.0f);
      }
      break;
    }
    case BoxScene::MixedSizes: {
      // Two boxes meet when their minima lie within the sums of their edges on every axis: a
      // volume whose mean is (E[e_a + e_b])^3 (the axes' edges are drawn apart), 2^3 for two
      // small boxes (edges of mean 1), 11^3 for a small and a large one, 20^3 for two large
      // ones. The cube is sized for the mean over the mix.
      constexpr std::size_t kLargeEvery = 1000;
      constexpr std::size_t kSnappedEvery = 100;
      constexpr double kLarge = 1.0 / kLargeEvery;
      const double meeting = (1 - kLarge) * (1 - kLarge) * 8.0 +
                             2 * kLarge * (1 - kLarge) * 1331.0 + kLarge * kLarge * 8000.0;
      const double space =
          meeting * static_cast<double>(count) / (2.0 * std::max(pairs_per_box, 0.01));
      std::uniform_real_distribution<float> corner(
          0.0f, static_cast<float>(std::cbrt(std::max(space, 1.0))));
      std::uniform_real_distribution<float> edge(0.5f, 1.5f);
      for (std::size_t i = 0; i < count; ++i) {
        const float scale = i % kLargeEvery == 0 ? 10.0f : 1.0f;
        physics::Vec3 low{corner(generator), corner(generator), corner(generator)};
        physics::Vec3 size{scale * edge(generator), scale * edge(generator),
                           scale * edge(generator)};
        if (i % kSnappedEvery == kSnappedEvery / 2) {  // faces on whole numbers (edges 1 or 2)
          low = {std::floor(low.x), std::floor(low.y), std::floor(low.z)};
          size = {std::round(size.x), std::round(size.y), std::round(size.z)};
        }
        boxes[i] = {low, {low.x + size.x, low.y + size.y, low.z + size.z}};
      }
      break;
    }
    case BoxScene::Degenerate:
      for (std::size_t i = 0; i < count; ++i) {
        const float x = std::floor(position(generator) / 4.0f);
        const float y = std::floor(position(generator) / 4.0f);
        const float z = std::floor(position(generator) / 4.0f);
        boxes[i] = i % 3 == 0 ? physics::Aabb{{x, y, z}, {x, y, z}} : cube(x, y, z, 0.5f);
      }
      break;
  }
  return boxes;
}

void jitter(std::span<physics::Aabb> boxes, float step, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> delta(-step, step);
  for (auto& box : boxes) {
    const physics::Vec3 d{delta(generator), delta(generator), delta(generator)};
    box.min = {box.min.x + d.x, box.min.y + d.y, box.min.z + d.z};
    box.max = {box.max.x + d.x, box.max.y + d.y, box.max.z + d.z};
  }
}

}  // namespace rsw::workloads
