// Box sets for broad-phase tests and benchmarks: random scenes of named shapes, and motion
// between frames. The tests and radixsweep-bench draw from the same generators, so a bench
// figure and a test case speak of the same scene.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rsw/physics/aabb.hpp"

namespace rsw::workloads {

enum class BoxScene {
  Uniform,       ///< cubes of one size, uniform in a box sized for ~`pairs_per_box` pairs per box
  Clustered,     ///< Gaussian clusters
  Mixed,         ///< uniform, with 0.1% of the boxes 10-100x larger
  GiantBox,      ///< uniform plus one box over everything
  TouchingGrid,  ///< unit cubes on an integer grid: neighbours touch exactly (closed intervals)
  Degenerate,    ///< zero-size boxes and exact duplicates
  Hotspots,      ///< uniform, with 1% of the boxes in two dense piles at opposite corners
  MixedSizes,    ///< edges 0.5-1.5 per axis, 0.1% ten times larger, 1% on integer faces
};

/// Every scene, in declaration order.
std::span<const BoxScene> all_box_scenes();
/// The scene's name as declared ("Uniform").
std::string to_string(BoxScene scene);

/// `count` boxes of `scene`. Uniform-style scenes place cubes of side 1 in a cube whose side
/// gives about `pairs_per_box` overlapping pairs per box (a cube of side 1 overlaps another
/// whose centre lies within a cube of side 2: expected pairs per box = 8 n / (2 V)).
/// MixedSizes sizes its cube the same way for its mix of edges (each box's edges uniform in
/// [0.5, 1.5], every 1000th box's ten times that, every 100th of the others with its faces
/// moved to whole numbers).
std::vector<physics::Aabb> make_boxes(std::size_t count, BoxScene scene, std::uint32_t seed,
                                      double pairs_per_box = 5.0);

/// Moves every box by a small random step (up to `step` per axis): the coherent case.
void jitter(std::span<physics::Aabb> boxes, float step, std::uint32_t seed);

}  // namespace rsw::workloads
