// The particles scene's landscape, a function of the particle count and the seed alone (so a
// test can rebuild it): six round hills and a long wave on a 129 x 129 height field over a
// walled square wide enough for the particles to pile two or three deep, lowest at height 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

namespace rsw::scenes::detail {

inline constexpr int kLandscapeSamples = 129;  // per side

struct LandscapeGrid {
  std::vector<float> heights;  // kLandscapeSamples^2, row by row (z), column by column (x)
  float half_extent = 2;       // the square [-half_extent, half_extent]^2
  float highest = 0;
};

inline LandscapeGrid make_landscape(std::uint32_t particles, std::uint32_t seed,
                                    float particle_radius) {
  LandscapeGrid grid;
  const float area =
      static_cast<float>(particles) * 4.0f * particle_radius * particle_radius / 2.5f;
  grid.half_extent = std::max(2.0f, 0.5f * std::sqrt(area));
  const float half = grid.half_extent;
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  struct Hill {
    float x, z, height, width;
  };
  std::vector<Hill> hills(6);
  for (Hill& hill : hills) {
    const float x = half * (2 * unit(generator) - 1);
    const float z = half * (2 * unit(generator) - 1);
    const float height = 0.15f * half * (0.5f + unit(generator));
    const float width = 0.25f * half * (0.5f + unit(generator));
    hill = {x, z, height, width};
  }
  grid.heights.assign(static_cast<std::size_t>(kLandscapeSamples) * kLandscapeSamples, 0.0f);
  const float step = 2 * half / (kLandscapeSamples - 1);
  const float k = 2 * std::numbers::pi_v<float> / half;
  for (int row = 0; row < kLandscapeSamples; ++row) {
    for (int column = 0; column < kLandscapeSamples; ++column) {
      const float x = -half + step * static_cast<float>(column);
      const float z = -half + step * static_cast<float>(row);
      float h = 0.05f * half * std::sin(0.8f * k * x) * std::cos(0.6f * k * z);
      for (const Hill& hill : hills) {
        const float dx = (x - hill.x) / hill.width;
        const float dz = (z - hill.z) / hill.width;
        h += hill.height * std::exp(-(dx * dx + dz * dz));
      }
      grid.heights[static_cast<std::size_t>(row) * kLandscapeSamples + column] = h;
    }
  }
  const float lowest = *std::min_element(grid.heights.begin(), grid.heights.end());
  for (float& h : grid.heights)
    h -= lowest;
  grid.highest = *std::max_element(grid.heights.begin(), grid.heights.end());
  return grid;
}

}  // namespace rsw::scenes::detail
