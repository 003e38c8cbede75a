// Worlds on the CPU backends: boxes of different worlds never pair, shared geometry
// (kAllWorlds) pairs with every world, filter bits still apply; the brute-force backend and the
// sweep agree with a reference written apart (world_scenes.hpp) on random scenes of many
// worlds; world ids out of range are an error naming the box. Every run draws a fresh seed and
// a failure prints it; to run a seed again, set RSW_PROPERTY_SEED to it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "broad_phase_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "world_scenes.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;

std::uint32_t seed_for_worlds() {
  if (const char* text = std::getenv("RSW_PROPERTY_SEED")) {
    return static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
  }
  return std::random_device{}();
}

// The scene's boxes as six arrays, for the structure-of-arrays update.
struct SceneArrays {
  std::vector<float> columns[6];
  explicit SceneArrays(const std::vector<Aabb>& boxes) {
    for (const Aabb& box : boxes) {
      const float values[6] = {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z};
      for (int k = 0; k < 6; ++k)
        columns[k].push_back(values[k]);
    }
  }
  physics::AabbArrays view() const {
    return {columns[0], columns[1], columns[2], columns[3], columns[4], columns[5]};
  }
};

TEST(BroadPhaseWorlds, BoxesOfDifferentWorldsNeverPairAndSharedGeometryPairsWithAll) {
  // Three copies of one box, in worlds 0, 5 and kMaxWorld, and a shared ground under them.
  const std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}},          {{0, 0, 0}, {1, 1, 1}},
                                   {{0, 0, 0}, {1, 1, 1}},          {{-5, -1, -5}, {5, 0, 5}},
                                   {{0.5f, 0.5f, 0.5f}, {2, 2, 2}}, {{-5, -2, -5}, {5, -0.5f, 5}}};
  const std::vector<std::uint32_t> worlds = {
      0, 5, physics::kMaxWorld, physics::kAllWorlds, 5, physics::kAllWorlds};
  const std::vector<physics::Pair> expected = {{0, 3}, {1, 3}, {1, 4}, {2, 3}, {3, 5}};
  for (const bool brute_force : {false, true}) {
    for (const physics::SweepMode mode :
         {physics::SweepMode::Cells, physics::SweepMode::AxisSweep}) {
      physics::BroadPhase broad_phase(
          {.backend = Backend::Cpu, .brute_force = brute_force, .mode = mode});
      broad_phase.update(boxes, {.worlds = worlds});
      EXPECT_TRUE(same_pair_set(expected, broad_phase.find_pairs()));
      // Without worlds, every box is in world 0.
      broad_phase.update(boxes);
      EXPECT_EQ(broad_phase.find_pairs().size(), 10u);
    }
  }
}

TEST(BroadPhaseWorlds, TheBruteForceOracleAgreesWithTheReference) {
  const std::uint32_t seed = seed_for_worlds();
  std::mt19937 random(seed);
  physics::BroadPhase oracle({.brute_force = true});
  for (int scene_index = 0; scene_index < 60; ++scene_index) {
    const auto layout = static_cast<WorldLayout>(scene_index % kWorldLayouts);
    const WorldScene scene = make_world_scene(layout, 1500, random);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (RSW_PROPERTY_SEED), scene " +
                 std::to_string(scene_index) + ": " + scene.description);
    oracle.set_options({.brute_force = true, .group_by_world = scene_index % 2 == 1});
    oracle.update(scene.boxes, scene.filter());
    if (scene_index % 2 == 1) {
      ASSERT_TRUE(grouped_by_world(scene, oracle.find_pairs(), oracle.world_pair_offsets()));
    } else {
      ASSERT_TRUE(same_pair_set(reference_world_pairs(scene), oracle.find_pairs()));
      EXPECT_TRUE(oracle.world_pair_offsets().empty());
    }
  }
}

TEST(BroadPhaseWorlds, RandomScenesOfManyWorldsAgreeWithTheReference) {
  const std::uint32_t seed = seed_for_worlds();
  std::mt19937 random(seed);
  // One broad phase for every scene: its carried order meets scenes of every size.
  physics::BroadPhase broad_phase({.backend = Backend::Cpu});
  for (int scene_index = 0; scene_index < 180; ++scene_index) {
    const auto layout = static_cast<WorldLayout>(scene_index % kWorldLayouts);
    const WorldScene scene = make_world_scene(layout, 12000, random);
    const bool cells = std::uniform_int_distribution<int>(0, 3)(random) != 0;
    SCOPED_TRACE("seed " + std::to_string(seed) + " (RSW_PROPERTY_SEED), scene " +
                 std::to_string(scene_index) + ": " + scene.description +
                 (cells ? ", cells" : ", axis sweep"));
    const bool grouped = scene_index % 4 == 1;
    broad_phase.set_options(
        {.backend = Backend::Cpu,
         .mode = cells ? physics::SweepMode::Cells : physics::SweepMode::AxisSweep,
         .sorted_pairs = scene_index % 2 == 0,
         .group_by_world = grouped});
    const std::vector<physics::Pair> expected = reference_world_pairs(scene);
    if (scene_index % 3 == 0) {
      const SceneArrays arrays(scene.boxes);
      broad_phase.update(arrays.view(), scene.filter());
    } else {
      broad_phase.update(scene.boxes, scene.filter());
    }
    ASSERT_TRUE(same_pair_set(expected, broad_phase.find_pairs()));
    if (grouped) {
      ASSERT_TRUE(
          grouped_by_world(scene, broad_phase.find_pairs(), broad_phase.world_pair_offsets()));
    }
  }
}

TEST(BroadPhaseWorlds, PairsGroupedByWorldOnEveryBackend) {
  // Worlds 0, 2 and 5 (1, 3 and 4 empty; 0 without pairs), a shared ground: each world's
  // pairs, those with the ground among them, at its offsets; the ground's pair with a shared
  // wall last.
  const std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}},       {{0.5f, 0, 0}, {2, 1, 1}},
                                   {{0, 0, 0}, {1, 1, 1}},       {{-5, -1, -5}, {5, 0, 5}},
                                   {{0.5f, 0.5f, 0}, {2, 2, 2}}, {{-5, -1, -5}, {-4, 5, 5}},
                                   {{3, 3, 3}, {4, 4, 4}}};
  const std::vector<std::uint32_t> worlds = {5, 5, 2, physics::kAllWorlds, 2, physics::kAllWorlds,
                                             0};
  const std::vector<physics::Pair> expected = {{2, 3}, {2, 4}, {0, 1}, {0, 3}, {1, 3}, {3, 5}};
  const std::vector<std::uint32_t> expected_offsets = {0, 0, 0, 2, 2, 2, 5};
  for (const bool brute_force : {false, true}) {
    physics::BroadPhase broad_phase(
        {.backend = Backend::Cpu, .brute_force = brute_force, .group_by_world = true});
    EXPECT_TRUE(broad_phase.world_pair_offsets().empty()) << "no frame yet";
    broad_phase.update(boxes, {.worlds = worlds});
    const auto pairs = broad_phase.find_pairs();
    EXPECT_EQ(std::vector<physics::Pair>(pairs.begin(), pairs.end()), expected);
    const auto offsets = broad_phase.world_pair_offsets();
    EXPECT_EQ(std::vector<std::uint32_t>(offsets.begin(), offsets.end()), expected_offsets);
    // Without world ids: one world, every pair in it.
    broad_phase.update(boxes);
    const auto one = broad_phase.world_pair_offsets();
    EXPECT_EQ(std::vector<std::uint32_t>(one.begin(), one.end()),
              (std::vector<std::uint32_t>{
                  0, static_cast<std::uint32_t>(broad_phase.find_pairs().size())}));
    // No boxes: no world, no pairs.
    broad_phase.update(std::span<const Aabb>{});
    EXPECT_EQ(broad_phase.world_pair_offsets().size(), 1u);
  }
}

TEST(BroadPhaseWorlds, WorldsInOneRegionAreSweptApart) {
  // 300 worlds of 40 boxes in the same region: each world has cells of its own, so the sweep
  // tests no more candidates than the worlds do each alone (testing one world's boxes against
  // another's would cost about 300 times as many).
  const std::uint32_t seed = seed_for_worlds();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed) + " (RSW_PROPERTY_SEED)");
  constexpr std::uint32_t kWorlds = 300;
  constexpr std::size_t kPerWorld = 40;
  std::vector<Aabb> boxes;
  std::vector<std::uint32_t> worlds;
  std::size_t alone = 0;  // candidates of the worlds swept one at a time
  for (const physics::SweepMode mode : {physics::SweepMode::Cells, physics::SweepMode::AxisSweep}) {
    boxes.clear();
    worlds.clear();
    alone = 0;
    physics::BroadPhase one_world({.backend = Backend::Cpu, .mode = mode});
    for (std::uint32_t w = 0; w < kWorlds; ++w) {
      std::vector<Aabb> world;
      for (std::size_t i = 0; i < kPerWorld; ++i)
        world.push_back(world_box(random));
      one_world.update(world);
      alone += one_world.stats().candidates;
      boxes.insert(boxes.end(), world.begin(), world.end());
      worlds.insert(worlds.end(), kPerWorld, w);
    }
    physics::BroadPhase broad_phase({.backend = Backend::Cpu, .mode = mode});
    broad_phase.update(boxes, {.worlds = worlds});
    EXPECT_LE(broad_phase.stats().candidates, alone + alone / 2);
    WorldScene scene;
    scene.boxes = boxes;
    scene.worlds = worlds;
    scene.categories.assign(boxes.size(), 1u);
    scene.masks.assign(boxes.size(), ~0u);
    EXPECT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));
  }
}

TEST(BroadPhaseWorlds, AWorldIdOutOfRangeIsAnErrorNamingTheBox) {
  const std::vector<Aabb> boxes(5, Aabb{{0, 0, 0}, {1, 1, 1}});
  for (const bool brute_force : {false, true}) {
    physics::BroadPhase broad_phase({.backend = Backend::Cpu, .brute_force = brute_force});
    for (const std::uint32_t bad : {physics::kMaxWorld + 1, 0xFFFFFFFEu}) {
      const std::vector<std::uint32_t> worlds = {0, 1, 2, bad, 3};
      try {
        broad_phase.update(boxes, {.worlds = worlds});
        FAIL() << "world " << bad << " was taken";
      } catch (const Error& error) {
        EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
        const std::string message = error.what();
        EXPECT_NE(message.find("worlds[3] is " + std::to_string(bad)), std::string::npos)
            << message;
        EXPECT_NE(message.find("16777215"), std::string::npos) << message;
      }
    }
    // The broad phase goes on with the next frame: world 1 holds boxes 1 and 2.
    const std::vector<std::uint32_t> worlds = {0, 1, 1, physics::kMaxWorld, 4};
    broad_phase.update(boxes, {.worlds = worlds});
    EXPECT_TRUE(same_pair_set({{1, 2}}, broad_phase.find_pairs()));
  }
}

TEST(BroadPhaseWorlds, WorldsOfAnotherLengthAreAnError) {
  const std::vector<Aabb> boxes(4, Aabb{{0, 0, 0}, {1, 1, 1}});
  const std::vector<std::uint32_t> worlds = {0, 1, 2};
  physics::BroadPhase broad_phase({.backend = Backend::Cpu});
  try {
    broad_phase.update(boxes, {.worlds = worlds});
    FAIL() << "three worlds were taken for four boxes";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("worlds"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace rsw::test
