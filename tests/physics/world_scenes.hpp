// Scenes of many independent worlds (the same region of space in every world, so that boxes of
// different worlds overlap everywhere), shared geometry in kAllWorlds, and a reference for
// their pairs written apart from the library: the pairs inside each world, by brute force per
// world, and those of the shared boxes with every box.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::test {

struct WorldScene {
  std::vector<physics::Aabb> boxes;
  std::vector<std::uint32_t> worlds;  // one per box
  std::vector<std::uint32_t> categories;
  std::vector<std::uint32_t> masks;
  std::string description;

  physics::FilterArrays filter() const { return {categories, masks, worlds}; }
};

enum class WorldLayout {
  ManySmall,       // up to 5,000 worlds of a few boxes, dense ids
  FewLarge,        // a few worlds of up to 300 boxes, sparse ids up to kMaxWorld
  OneWorld,        // every box in one world
  EachItsOwn,      // every box in a world of its own
  SharedHeavy,     // small worlds on a ground and walls of kAllWorlds boxes
  WithEmptyWorlds  // worlds numbered with gaps, some ids never used, a few kAllWorlds boxes
};

inline const char* name_of(WorldLayout layout) {
  switch (layout) {
    case WorldLayout::ManySmall: return "many small worlds";
    case WorldLayout::FewLarge: return "few large worlds";
    case WorldLayout::OneWorld: return "one world";
    case WorldLayout::EachItsOwn: return "each box its own world";
    case WorldLayout::SharedHeavy: return "shared geometry";
    case WorldLayout::WithEmptyWorlds: return "empty worlds";
  }
  return "?";
}

inline constexpr int kWorldLayouts = 6;

// A box in the region [0, 8]^3 every world shares: sizes 0.2 to 1.6, a third of them with
// integer corners (faces that touch exactly).
inline physics::Aabb world_box(std::mt19937& random) {
  std::uniform_real_distribution<float> place(0.0f, 8.0f);
  std::uniform_real_distribution<float> size(0.2f, 1.6f);
  const bool snapped = std::uniform_int_distribution<int>(0, 2)(random) == 0;
  physics::Vec3 low{place(random), place(random), place(random)};
  physics::Vec3 extent{size(random), size(random), size(random)};
  if (snapped) {
    low = {std::floor(low.x), std::floor(low.y), std::floor(low.z)};
    extent = {std::ceil(extent.x), std::ceil(extent.y), std::ceil(extent.z)};
  }
  return {low, {low.x + extent.x, low.y + extent.y, low.z + extent.z}};
}

// A scene of `layout` with at most about `most_boxes` boxes; filter bits on one in three.
inline WorldScene make_world_scene(WorldLayout layout, std::size_t most_boxes,
                                   std::mt19937& random) {
  WorldScene scene;
  std::vector<std::uint32_t> ids;  // the worlds' ids
  std::size_t per_world = 1;
  const auto pick = [&](std::size_t low, std::size_t high) {
    return std::uniform_int_distribution<std::size_t>(low, high)(random);
  };
  switch (layout) {
    case WorldLayout::ManySmall: {
      const std::size_t worlds = pick(1, 5000);
      per_world = std::max<std::size_t>(1, most_boxes / worlds);
      for (std::size_t w = 0; w < worlds; ++w)
        ids.push_back(static_cast<std::uint32_t>(w));
      break;
    }
    case WorldLayout::FewLarge: {
      const std::size_t worlds = pick(1, 20);
      per_world = std::min<std::size_t>(300, most_boxes / worlds);
      std::uniform_int_distribution<std::uint32_t> id(0, physics::kMaxWorld);
      while (ids.size() < worlds) {
        const std::uint32_t candidate = ids.empty() ? physics::kMaxWorld : id(random);
        if (std::ranges::find(ids, candidate) == ids.end()) ids.push_back(candidate);
      }
      break;
    }
    case WorldLayout::OneWorld:
      ids.push_back(std::uniform_int_distribution<std::uint32_t>(0, physics::kMaxWorld)(random));
      per_world = pick(0, std::min<std::size_t>(most_boxes, 3000));
      break;
    case WorldLayout::EachItsOwn: {
      const std::size_t boxes = pick(0, most_boxes);
      for (std::size_t w = 0; w < boxes; ++w)
        ids.push_back(static_cast<std::uint32_t>(w * 3 + 1));
      break;
    }
    case WorldLayout::SharedHeavy:
    case WorldLayout::WithEmptyWorlds: {
      const std::size_t worlds = pick(1, 400);
      per_world = std::min<std::size_t>(pick(0, 30), most_boxes / worlds);
      for (std::size_t w = 0; w < worlds; ++w)
        ids.push_back(static_cast<std::uint32_t>(layout == WorldLayout::SharedHeavy ? w : 7 * w));
      break;
    }
  }
  for (const std::uint32_t id : ids) {
    // Worlds of 0 to per_world boxes: some empty.
    const std::size_t count = layout == WorldLayout::ManySmall || layout == WorldLayout::FewLarge
                                  ? pick(0, per_world)
                                  : per_world;
    for (std::size_t i = 0; i < count; ++i) {
      scene.boxes.push_back(world_box(random));
      scene.worlds.push_back(id);
    }
  }
  // Shared geometry: a ground and walls around the region, and a few boxes inside it.
  std::size_t shared = 0;
  if (layout == WorldLayout::SharedHeavy) shared = pick(3, 12);
  if (layout == WorldLayout::WithEmptyWorlds || layout == WorldLayout::ManySmall)
    shared = pick(0, 3);
  for (std::size_t i = 0; i < shared; ++i) {
    physics::Aabb box = world_box(random);
    if (i == 0) box = {{-1, -1, -1}, {9, 0, 9}};  // the ground, touching boxes that stand on 0
    if (i == 1) box = {{-1, 0, -1}, {0, 9, 9}};   // a wall
    scene.boxes.push_back(box);
    scene.worlds.push_back(physics::kAllWorlds);
  }
  // The boxes in random order, so that no world's boxes lie together.
  std::vector<std::size_t> order(scene.boxes.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::ranges::shuffle(order, random);
  WorldScene shuffled;
  for (const std::size_t i : order) {
    shuffled.boxes.push_back(scene.boxes[i]);
    shuffled.worlds.push_back(scene.worlds[i]);
  }
  if (std::uniform_int_distribution<int>(0, 2)(random) == 0) {
    std::uniform_int_distribution<std::uint32_t> bits(0, 3);
    for (std::size_t i = 0; i < shuffled.boxes.size(); ++i) {
      shuffled.categories.push_back(1u << bits(random));
      shuffled.masks.push_back(~(1u << bits(random)));
    }
  }
  shuffled.description = std::string(name_of(layout)) + ", " + std::to_string(ids.size()) +
                         " worlds, " + std::to_string(shared) + " shared, " +
                         std::to_string(shuffled.boxes.size()) + " boxes" +
                         (shuffled.categories.empty() ? "" : ", filter bits");
  return shuffled;
}

// The pairs of a scene by their definition, sorted: two boxes pair when their closed boxes
// overlap, their filter bits admit each other, and they are in the same world or one of them
// is in kAllWorlds. Each world is tested by brute force on its own, and the shared boxes
// against every box.
inline std::vector<physics::Pair> reference_world_pairs(const WorldScene& scene) {
  const auto admitted = [&](std::uint32_t a, std::uint32_t b) {
    if (!physics::overlaps(scene.boxes[a], scene.boxes[b])) return false;
    if (scene.categories.empty()) return true;
    return physics::filters_pass(scene.categories[a], scene.masks[a], scene.categories[b],
                                 scene.masks[b]);
  };
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_world;
  std::vector<std::uint32_t> shared;
  for (std::uint32_t i = 0; i < scene.boxes.size(); ++i) {
    const std::uint32_t world = scene.worlds.empty() ? 0 : scene.worlds[i];
    (world == physics::kAllWorlds ? shared : by_world[world]).push_back(i);
  }
  std::vector<physics::Pair> pairs;
  const auto add = [&](std::uint32_t a, std::uint32_t b) {
    if (admitted(a, b)) pairs.push_back(a < b ? physics::Pair{a, b} : physics::Pair{b, a});
  };
  for (const auto& [world, members] : by_world) {
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t j = i + 1; j < members.size(); ++j)
        add(members[i], members[j]);
  }
  for (std::size_t i = 0; i < shared.size(); ++i) {
    for (std::size_t j = i + 1; j < shared.size(); ++j)
      add(shared[i], shared[j]);
    for (const auto& [world, members] : by_world)
      for (const std::uint32_t member : members)
        add(shared[i], member);
  }
  std::ranges::sort(pairs);
  return pairs;
}

// Whether `pairs` and `offsets` are the scene's pairs grouped as
// BroadPhaseOptions::group_by_world promises: an offset per world id from 0 to the largest a
// box has, and one more; world w's pairs (its own, and its boxes' with shared ones) at
// [offsets[w], offsets[w + 1]) in (a, b) order; then the pairs of two shared boxes, in (a, b)
// order. Without world ids every box is in world 0.
inline testing::AssertionResult grouped_by_world(const WorldScene& scene,
                                                 std::span<const physics::Pair> pairs,
                                                 std::span<const std::uint32_t> offsets) {
  const auto world_of = [&](std::uint32_t box) {
    return scene.worlds.empty() ? 0u : scene.worlds[box];
  };
  std::uint64_t worlds = 0;  // ids 0..worlds-1 are covered
  for (std::uint32_t box = 0; box < scene.boxes.size(); ++box) {
    if (world_of(box) != physics::kAllWorlds)
      worlds = std::max<std::uint64_t>(worlds, world_of(box) + 1ull);
  }
  std::map<std::uint64_t, std::vector<physics::Pair>> by_world;  // `worlds`: two shared boxes
  for (const physics::Pair& pair : reference_world_pairs(scene)) {
    std::uint64_t world = world_of(pair.a);
    if (world == physics::kAllWorlds) world = world_of(pair.b);
    if (world == physics::kAllWorlds) world = worlds;
    by_world[world].push_back(pair);
  }
  std::vector<physics::Pair> expected;
  std::vector<std::uint32_t> expected_offsets(worlds + 1, 0);
  for (const auto& [world, members] : by_world) {
    if (world < worlds) expected_offsets[world + 1] = static_cast<std::uint32_t>(members.size());
    expected.insert(expected.end(), members.begin(), members.end());
  }
  std::partial_sum(expected_offsets.begin(), expected_offsets.end(), expected_offsets.begin());
  if (offsets.size() != expected_offsets.size()) {
    return testing::AssertionFailure()
           << offsets.size() << " offsets, expected " << expected_offsets.size();
  }
  for (std::size_t w = 0; w < offsets.size(); ++w) {
    if (offsets[w] != expected_offsets[w]) {
      return testing::AssertionFailure()
             << "offsets[" << w << "] is " << offsets[w] << ", expected " << expected_offsets[w];
    }
  }
  if (pairs.size() != expected.size()) {
    return testing::AssertionFailure() << pairs.size() << " pairs, expected " << expected.size();
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].a != expected[i].a || pairs[i].b != expected[i].b) {
      return testing::AssertionFailure()
             << "pair " << i << " is (" << pairs[i].a << ", " << pairs[i].b << "), expected ("
             << expected[i].a << ", " << expected[i].b << ")";
    }
  }
  return testing::AssertionSuccess();
}

}  // namespace rsw::test
