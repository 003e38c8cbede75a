// The GPU broad phase against brute force, and switching backends between frames.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <utility>

#include "broad_phase_cases.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw_test/cuda_device.hpp"
#include "world_scenes.hpp"

namespace rsw::test {

rsw::Backend tested_backend() {
  return rsw::Backend::Cuda;
}
void require_tested_backend() {
  if (!cuda_runtime_info().available()) {
    GTEST_SKIP() << "no CUDA device: " << cuda_runtime_info().unavailable_reason;
  }
}

TEST(BroadPhaseSwitching, CpuAndGpuTakeTurnsOnMovingBoxes) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(40'009, BoxScene::Clustered, seed);
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  for (int frame = 0; frame < 6; ++frame) {
    physics::BroadPhaseOptions options = broad_phase.options();
    options.backend = frame % 2 == 0 ? rsw::Backend::Cuda : rsw::Backend::Cpu;
    broad_phase.set_options(options);
    broad_phase.update(boxes);
    EXPECT_EQ(broad_phase.stats().backend, options.backend);
    ASSERT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()))
        << "seed " << seed << ", frame " << frame;
    jitter(boxes, 0.02f, seed + static_cast<std::uint32_t>(frame));
  }
}

TEST(BroadPhaseLongRuns, GiveTheOraclesPairsAndTheCpusCandidates) {
  // The GPU sweep tests at most 64 candidates of a listing at once and hands longer runs to
  // its load-balanced tests: dense boxes (runs of hundreds), in a cell grid and in one long
  // x-sweep, must give the oracle's pairs and the candidate count of the CPU, which sweeps
  // each run whole.
  RSW_REQUIRE_CUDA_DEVICE();
  for (const auto& [scene, pairs_per_box] :
       {std::pair{BoxScene::Uniform, 60.0}, std::pair{BoxScene::Clustered, 2.0}}) {
    for (physics::SweepMode mode : {physics::SweepMode::Cells, physics::SweepMode::AxisSweep}) {
      const std::uint32_t seed = fresh_box_seed();
      const auto boxes = make_boxes(30'011, scene, seed, pairs_per_box);
      physics::BroadPhase gpu({.backend = rsw::Backend::Cuda, .mode = mode});
      physics::BroadPhase cpu({.backend = rsw::Backend::Cpu, .mode = mode});
      gpu.update(boxes);
      cpu.update(boxes);
      const std::string context = "seed " + std::to_string(seed) + ", " + to_string(scene) + ", " +
                                  std::to_string(pairs_per_box) + " pairs per box, " +
                                  (mode == physics::SweepMode::Cells ? "cells" : "axis sweep");
      ASSERT_TRUE(same_pair_set(oracle_pairs(boxes), gpu.find_pairs())) << context;
      EXPECT_EQ(gpu.stats().candidates, cpu.stats().candidates) << context;
      EXPECT_EQ(gpu.stats().cells, cpu.stats().cells) << context;
      if (mode == physics::SweepMode::AxisSweep) {  // runs of more than 64 on average: some long
        EXPECT_GT(cpu.stats().candidates, 64 * boxes.size()) << context;
      }
    }
  }
}

// The boxes as six device arrays, uploaded on `stream` (queued, not waited for: a copy from
// pageable memory has read it by the time the call returns).
physics::DeviceAabbStore on_device(const std::vector<physics::Aabb>& boxes,
                                   StreamHandle stream = nullptr) {
  physics::AabbStore host;
  host.assign(boxes);
  physics::DeviceAabbStore device;
  device.upload(host.view(), stream);
  return device;
}

TEST(BroadPhaseDeviceInput, EveryBackendTakesDeviceArraysAndGivesDevicePairs) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(10'007, BoxScene::Mixed, seed);
  std::vector<std::uint32_t> categories(boxes.size());
  std::vector<std::uint32_t> masks(boxes.size());
  std::mt19937 generator(seed);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    categories[i] = 1u << (generator() % 4);
    masks[i] = static_cast<std::uint32_t>(generator() % 16);
  }
  const auto expected = oracle_pairs(boxes, {.categories = categories, .masks = masks});
  const physics::DeviceAabbStore device_boxes = on_device(boxes);
  DeviceBuffer<std::uint32_t> device_categories;
  DeviceBuffer<std::uint32_t> device_masks;
  device_categories.upload(categories);
  device_masks.upload(masks);
  for (const rsw::Backend backend : {rsw::Backend::Cuda, rsw::Backend::Cpu}) {
    for (const bool brute_force : {false, true}) {
      physics::BroadPhase broad_phase({.backend = backend, .brute_force = brute_force});
      for (int frame = 0; frame < 2; ++frame) {
        broad_phase.update(device_boxes.view(),
                           {.categories = device_categories.span(), .masks = device_masks.span()});
        const auto on_device = to_host(broad_phase.find_pairs_device());
        EXPECT_TRUE(same_pair_set(expected, on_device))
            << "seed " << seed << ", " << to_string(backend)
            << (brute_force ? ", brute force" : "");
        EXPECT_TRUE(same_pair_set(expected, broad_phase.find_pairs())) << "seed " << seed;
      }
    }
  }
}

TEST(BroadPhaseDeviceInput, TheCallersStreamOrdersTheFrame) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(20'011, BoxScene::Uniform, seed);
  const Stream stream;
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda, .stream = stream.handle()});
  for (int frame = 0; frame < 3; ++frame) {
    const physics::DeviceAabbStore device_boxes = on_device(boxes, stream.handle());
    broad_phase.update(device_boxes.view());
    ASSERT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()))
        << "seed " << seed << ", frame " << frame;
    jitter(boxes, 0.05f, seed + static_cast<std::uint32_t>(frame));
  }
}

TEST(BroadPhaseDeviceInput, UntimedStagesFindTheSamePairs) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(30'011, BoxScene::Mixed, seed);
  physics::BroadPhase timed({.backend = rsw::Backend::Cuda});
  physics::BroadPhase untimed({.backend = rsw::Backend::Cuda, .stage_times = false});
  for (int frame = 0; frame < 3; ++frame) {
    timed.update(boxes);
    untimed.update(boxes);
    ASSERT_TRUE(same_pair_set(sorted_copy(timed.find_pairs()), untimed.find_pairs()))
        << "seed " << seed << ", frame " << frame;
    const physics::BroadPhaseStats& stats = untimed.stats();
    EXPECT_GT(stats.total_ms, 0.0);
    EXPECT_EQ(stats.upload_ms + stats.keys_ms + stats.sort_ms + stats.list_ms + stats.sweep_ms +
                  stats.pair_sort_ms + stats.download_ms,
              0.0);
    EXPECT_GT(timed.stats().sweep_ms, 0.0);
    EXPECT_EQ(untimed.stats().candidates, timed.stats().candidates);
    jitter(boxes, 0.05f, seed + static_cast<std::uint32_t>(frame));
  }
}

TEST(BroadPhaseDeviceInput, InvalidDeviceBoxesAreNamedOrExcluded) {
  RSW_REQUIRE_CUDA_DEVICE();
  auto boxes = make_boxes(5000, BoxScene::Uniform, 5);
  boxes[4321].min.z = std::numeric_limits<float>::quiet_NaN();
  boxes[4000].max.y = boxes[4000].min.y - 1.0f;
  const physics::DeviceAabbStore device_boxes = on_device(boxes);
  physics::BroadPhase rejecting({.backend = rsw::Backend::Cuda});
  try {
    rejecting.update(device_boxes.view());
    FAIL() << "accepted invalid device boxes";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("box 4000 has min > max on y"), std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(rejecting.find_pairs().empty()) << "a rejected frame has no pairs";

  physics::BroadPhase excluding(
      {.backend = rsw::Backend::Cuda, .invalid_boxes = physics::InvalidBoxes::Exclude});
  excluding.update(device_boxes.view());
  EXPECT_EQ(excluding.stats().excluded_boxes, 2u);
  physics::BroadPhase oracle(
      {.brute_force = true, .invalid_boxes = physics::InvalidBoxes::Exclude});
  oracle.update(boxes);
  EXPECT_TRUE(same_pair_set(sorted_copy(oracle.find_pairs()), excluding.find_pairs()));
}

TEST(BroadPhaseDeviceInput, MismatchedDeviceArraysAreRejected) {
  RSW_REQUIRE_CUDA_DEVICE();
  const physics::DeviceAabbStore device_boxes = on_device(make_boxes(10, BoxScene::Uniform, 3));
  physics::DeviceAabbArrays arrays = device_boxes.view();
  arrays.max_z.size = 9;
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  EXPECT_THROW(broad_phase.update(arrays), Error);
}

// Worlds on the GPU: random scenes of many worlds (shared geometry, empty worlds, one world,
// each box its own world, filter bits) from host and device arrays, in both modes, against the
// reference written apart; then world ids out of range, from host and device arrays.
TEST(BroadPhaseWorldsGpu, RandomScenesOfManyWorldsAgreeWithTheReference) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  std::mt19937 random(seed);
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  for (int scene_index = 0; scene_index < 60; ++scene_index) {
    const auto layout = static_cast<WorldLayout>(scene_index % kWorldLayouts);
    const WorldScene scene = make_world_scene(layout, 20011, random);
    const bool cells = scene_index % 4 != 3;
    const bool device = scene_index % 2 == 1;
    SCOPED_TRACE("seed " + std::to_string(seed) + ", scene " + std::to_string(scene_index) + ": " +
                 scene.description + (cells ? ", cells" : ", axis sweep") +
                 (device ? ", device arrays" : ""));
    const bool grouped = scene_index % 3 == 1;
    broad_phase.set_options(
        {.backend = rsw::Backend::Cuda,
         .mode = cells ? physics::SweepMode::Cells : physics::SweepMode::AxisSweep,
         .group_by_world = grouped});
    const std::vector<physics::Pair> expected = reference_world_pairs(scene);
    if (device) {
      const physics::DeviceAabbStore boxes = on_device(scene.boxes);
      DeviceBuffer<std::uint32_t> categories;
      DeviceBuffer<std::uint32_t> masks;
      DeviceBuffer<std::uint32_t> worlds;
      categories.upload(scene.categories);
      masks.upload(scene.masks);
      worlds.upload(scene.worlds);
      broad_phase.update(boxes.view(), {categories.span(), masks.span(), worlds.span()});
      ASSERT_TRUE(same_pair_set(expected, to_host(broad_phase.find_pairs_device())));
      if (grouped) {
        ASSERT_TRUE(grouped_by_world(scene, to_host(broad_phase.find_pairs_device()),
                                     to_host(broad_phase.world_pair_offsets_device())));
      }
    } else {
      broad_phase.update(scene.boxes, scene.filter());
    }
    ASSERT_TRUE(same_pair_set(expected, broad_phase.find_pairs()));
    if (grouped) {
      ASSERT_TRUE(
          grouped_by_world(scene, broad_phase.find_pairs(), broad_phase.world_pair_offsets()));
    } else {
      EXPECT_TRUE(broad_phase.world_pair_offsets().empty());
    }
  }
}

TEST(BroadPhaseWorldsGpu, WorldsInOneRegionAreSweptApart) {
  // As on the CPU: 300 worlds of 40 boxes in one region cost no more candidates than the
  // worlds each alone; with a shared ground under them, every box meets it.
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr std::uint32_t kWorlds = 300;
  constexpr std::size_t kPerWorld = 40;
  for (const physics::SweepMode mode : {physics::SweepMode::Cells, physics::SweepMode::AxisSweep}) {
    WorldScene scene;
    std::size_t alone = 0;  // candidates of the worlds swept one at a time
    physics::BroadPhase one_world({.backend = rsw::Backend::Cuda, .mode = mode});
    for (std::uint32_t w = 0; w < kWorlds; ++w) {
      std::vector<physics::Aabb> world;
      for (std::size_t i = 0; i < kPerWorld; ++i)
        world.push_back(world_box(random));
      one_world.update(world);
      alone += one_world.stats().candidates;
      scene.boxes.insert(scene.boxes.end(), world.begin(), world.end());
      scene.worlds.insert(scene.worlds.end(), kPerWorld, w);
    }
    scene.categories.assign(scene.boxes.size(), 1u);
    scene.masks.assign(scene.boxes.size(), ~0u);
    physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda, .mode = mode});
    broad_phase.update(scene.boxes, scene.filter());
    EXPECT_LE(broad_phase.stats().candidates, alone + alone / 2);
    EXPECT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));

    scene.boxes.push_back({{-1, -1, -1}, {9, 0.5f, 9}});
    scene.worlds.push_back(physics::kAllWorlds);
    scene.categories.push_back(1u);
    scene.masks.push_back(~0u);
    broad_phase.update(scene.boxes, scene.filter());
    EXPECT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));
  }
}

TEST(BroadPhaseWorldsGpu, SmallWorldsSweptWholeFrameAfterFrameAgreeWithTheReference) {
  // From the second frame of a scene whose worlds average at most 256 boxes, the GPU sweeps
  // each world whole (one key a box: world, then minimum; no cells). Each scene runs four
  // frames, its boxes jittered between them, one made NaN (excluded) in the third; a scene
  // with a world of 1,500 boxes all overlapping along the axis (stacked apart on y) goes back
  // to the cells.
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> jitter(-0.05f, 0.05f);
  for (int scene_index = 0; scene_index < 2 * kWorldLayouts + 1; ++scene_index) {
    const bool dense = scene_index == 2 * kWorldLayouts;
    const auto layout = static_cast<WorldLayout>(scene_index % kWorldLayouts);
    WorldScene scene = make_world_scene(layout, 20011, random);
    if (dense) {  // beside many small worlds, one whose every box meets all along x
      for (int i = 0; i < 1500; ++i) {
        const float x = 0.0005f * static_cast<float>(i);
        const float y = 2.0f * static_cast<float>(i);
        scene.boxes.push_back({{x, y, 0}, {x + 1, y + 1, 1}});
        scene.worlds.push_back(4);
        if (!scene.categories.empty()) {
          scene.categories.push_back(1u);
          scene.masks.push_back(~0u);
        }
      }
    }
    const bool grouped = scene_index % 2 == 1;
    physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda,
                                     .invalid_boxes = physics::InvalidBoxes::Exclude,
                                     .group_by_world = grouped});
    for (int frame = 0; frame < 4; ++frame) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", scene " + std::to_string(scene_index) +
                   ": " + scene.description + (dense ? ", a dense world" : "") + ", frame " +
                   std::to_string(frame));
      if (frame > 0) {
        for (physics::Aabb& box : scene.boxes) {
          const physics::Vec3 move{jitter(random), jitter(random), jitter(random)};
          box = {{box.min.x + move.x, box.min.y + move.y, box.min.z + move.z},
                 {box.max.x + move.x, box.max.y + move.y, box.max.z + move.z}};
        }
      }
      if (frame == 2 && !scene.boxes.empty()) {
        scene.boxes[scene.boxes.size() / 2].min.y = std::numeric_limits<float>::quiet_NaN();
      }
      broad_phase.update(scene.boxes, scene.filter());
      ASSERT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));
      if (grouped) {
        ASSERT_TRUE(
            grouped_by_world(scene, broad_phase.find_pairs(), broad_phase.world_pair_offsets()));
      }
      if (dense && frame >= 2) {
        EXPECT_GT(broad_phase.stats().cells, 0u) << "a long walk sends the worlds to the cells";
      }
      if (layout == WorldLayout::ManySmall && !dense && frame > 0 &&
          broad_phase.stats().boxes > 0) {
        EXPECT_EQ(broad_phase.stats().cells, 0u) << "small worlds are swept whole";
      }
    }
  }
}

TEST(BroadPhaseWorldsGpu, AWorldIdOutOfRangeIsAnErrorNamingTheBox) {
  RSW_REQUIRE_CUDA_DEVICE();
  for (const std::size_t count : {std::size_t{1}, std::size_t{1009}}) {
    const std::vector<physics::Aabb> boxes(count, physics::Aabb{{0, 0, 0}, {1, 1, 1}});
    std::vector<std::uint32_t> worlds(count, 0);
    const std::size_t bad = count / 2;
    worlds[bad] = physics::kMaxWorld + 1;
    const physics::DeviceAabbStore device_boxes = on_device(boxes);
    DeviceBuffer<std::uint32_t> device_worlds;
    device_worlds.upload(worlds);
    physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
    for (const bool device : {false, true}) {
      try {
        if (device) {
          broad_phase.update(device_boxes.view(), {.worlds = device_worlds.span()});
        } else {
          broad_phase.update(boxes, {.worlds = worlds});
        }
        FAIL() << "world " << worlds[bad] << " was taken";
      } catch (const Error& error) {
        EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
        EXPECT_NE(std::string(error.what())
                      .find("worlds[" + std::to_string(bad) + "] is " +
                            std::to_string(physics::kMaxWorld + 1)),
                  std::string::npos)
            << error.what();
      }
    }
    // The next frame is whole: box `bad` alone in kMaxWorld, the others in world 0.
    worlds[bad] = physics::kMaxWorld;
    broad_phase.update(boxes, {.worlds = worlds});
    EXPECT_EQ(broad_phase.find_pairs().size(), (count - 1) * (count - 2) / 2);
  }
}

}  // namespace rsw::test
