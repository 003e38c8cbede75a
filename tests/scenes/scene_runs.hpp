// Runs of a scene on the CPU for the scenes' tests, and how far its bodies moved.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string_view>
#include <vector>

#include "rsw/engine/profiler.hpp"
#include "rsw/scenes/scene.hpp"

namespace rsw::scenes::testing {

/// `frames` more frames of `scene`.
inline void advance(Scene& scene, int frames) {
  StageProfiler profiler;
  for (int frame = 0; frame < frames; ++frame) {
    scene.step(profiler);
    profiler.end_frame();
  }
}

/// Scene `name` with `count` bodies from `seed`, run `frames` frames on the CPU.
inline std::unique_ptr<Scene> run_on_cpu(std::string_view name, std::size_t count,
                                         std::uint32_t seed, int frames) {
  std::unique_ptr<Scene> scene = make_scene(name);
  scene->reset({.count = count, .seed = seed, .backend = Backend::Cpu});
  advance(*scene, frames);
  return scene;
}

/// The mean and the largest distance between the bodies' places in `before` and `after`.
struct Moves {
  double mean = 0;
  double farthest = 0;
};
inline Moves moves(const std::vector<std::array<float, 3>>& before,
                   const std::vector<std::array<float, 3>>& after) {
  Moves result;
  for (std::size_t i = 0; i < after.size(); ++i) {
    const double step = std::hypot(after[i][0] - before[i][0], after[i][1] - before[i][1],
                                   after[i][2] - before[i][2]);
    result.mean += step;
    result.farthest = std::max(result.farthest, step);
  }
  if (!after.empty()) result.mean /= static_cast<double>(after.size());
  return result;
}

}  // namespace rsw::scenes::testing
