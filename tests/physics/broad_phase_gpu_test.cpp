// The GPU broad phase against brute force, and switching backends between frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
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

// A frame on a kept listing: from a scene's third frame on, boxes that stayed in the cells they
// were listed in (widened by a margin) are swept on the listing of a frame before, their runs
// widened by how far their minima drifted from the keys they were sorted by.

// Runs `frames` frames of `boxes`, moving them with `move` (frame, boxes) between frames, each
// checked against the oracle; returns how many were swept on a kept listing.
template <class Move>
std::size_t expect_frames_to_match_the_oracle(physics::BroadPhase& broad_phase,
                                              std::vector<physics::Aabb>& boxes, int frames,
                                              const std::string& context, Move&& move,
                                              physics::FilterArrays filter = {}) {
  std::size_t reused = 0;
  for (int frame = 0; frame < frames; ++frame) {
    broad_phase.update(boxes, filter);
    const auto found = broad_phase.find_pairs();
    EXPECT_TRUE(same_pair_set(oracle_pairs(boxes, filter), found))
        << context << ", frame " << frame
        << (broad_phase.stats().listing_reused ? " (kept listing)" : "");
    reused += broad_phase.stats().listing_reused ? 1 : 0;
    move(frame, boxes);
  }
  return reused;
}

TEST(BroadPhaseKeptListing, FramesOfLittleMotionGiveTheOraclesPairs) {
  // Every scene kind, in cells and along one axis (long runs there: their rest is found by
  // the kept keys), at a size that is no multiple of a warp or a block.
  RSW_REQUIRE_CUDA_DEVICE();
  for (const BoxScene scene : all_box_scenes()) {
    for (physics::SweepMode mode : {physics::SweepMode::Cells, physics::SweepMode::AxisSweep}) {
      const std::uint32_t seed = fresh_box_seed();
      auto boxes = make_boxes(scene == BoxScene::GiantBox ? 5'003 : 12'011, scene, seed);
      physics::BroadPhase broad_phase(
          {.backend = rsw::Backend::Cuda, .mode = mode, .sorted_pairs = seed % 2 == 0});
      const std::string context = "seed " + std::to_string(seed) + ", " + to_string(scene) +
                                  (mode == physics::SweepMode::Cells ? ", cells" : ", axis sweep");
      const std::size_t reused = expect_frames_to_match_the_oracle(
          broad_phase, boxes, 10, context, [&](int frame, std::vector<physics::Aabb>& moved) {
            jitter(moved, 0.002f, seed + static_cast<std::uint32_t>(frame));
          });
      // Dense scenes keep no listing when theirs would cost many more candidates; these do.
      if (scene == BoxScene::Uniform || scene == BoxScene::MixedSizes) {
        EXPECT_GE(reused, 6u) << context << ": frames on a kept listing";
      }
    }
  }
}

TEST(BroadPhaseKeptListing, ABoxThatLeavesItsCellsHasTheFrameListedAfresh) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(20'011, BoxScene::Uniform, seed);
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  std::vector<bool> reused;
  expect_frames_to_match_the_oracle(
      broad_phase, boxes, 9, "seed " + std::to_string(seed),
      [&](int frame, std::vector<physics::Aabb>& moved) {
        reused.push_back(broad_phase.stats().listing_reused);
        if (frame == 4) {  // a box taken to another box's place: new partners, old ones lost
          const physics::Vec3 to = moved[17].min;
          moved[9'999].max = {to.x + (moved[9'999].max.x - moved[9'999].min.x),
                              to.y + (moved[9'999].max.y - moved[9'999].min.y),
                              to.z + (moved[9'999].max.z - moved[9'999].min.z)};
          moved[9'999].min = to;
        }
      });
  ASSERT_EQ(reused.size(), 9u);
  EXPECT_TRUE(reused[3] && reused[4]) << "frames 3 and 4 on the kept listing";
  EXPECT_FALSE(reused[5]) << "frame 5 listed afresh";
  EXPECT_TRUE(reused[7]) << "a listing kept again";
}

TEST(BroadPhaseKeptListing, MinimaDriftingAlongTheAxisAreSweptAndThenListedAfresh) {
  // Every box moves along the sweep axis only: it stays in its cells, and its minimum drifts
  // further from its key each frame, so runs reach further, until the margin is spent.
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(15'013, BoxScene::MixedSizes, seed);
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda, .axis = physics::SweepAxis::X});
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> step(-0.03f, 0.03f);
  std::size_t afresh_after_reuse = 0;
  bool last_reused = false;
  expect_frames_to_match_the_oracle(broad_phase, boxes, 24, "seed " + std::to_string(seed),
                                    [&](int, std::vector<physics::Aabb>& moved) {
                                      const bool reused = broad_phase.stats().listing_reused;
                                      if (last_reused && !reused) ++afresh_after_reuse;
                                      last_reused = reused;
                                      for (physics::Aabb& box : moved) {
                                        const float dx = step(random);
                                        box.min.x += dx;
                                        box.max.x += dx;
                                      }
                                    });
  EXPECT_GE(afresh_after_reuse, 1u) << "seed " << seed << ": the drift ended a kept listing";
}

TEST(BroadPhaseKeptListing, BoxesTurningInvalidOrFilteredOutAreSeenInTheFrame) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(8'009, BoxScene::Uniform, seed);
  std::vector<std::uint32_t> categories(boxes.size(), 1u);
  std::vector<std::uint32_t> masks(boxes.size(), 0xFFFFFFFFu);
  physics::BroadPhase excluding(
      {.backend = rsw::Backend::Cuda, .invalid_boxes = physics::InvalidBoxes::Exclude});
  physics::BroadPhase oracle(
      {.brute_force = true, .invalid_boxes = physics::InvalidBoxes::Exclude});
  // A change every fourth frame, each seen by a frame on a kept listing and listed afresh: a
  // box turns NaN, valid again, into category 0 and back; a mask of 0 changes no listing.
  std::size_t reused_later = 0;
  for (int frame = 0; frame < 20; ++frame) {
    if (frame == 4) boxes[333].max.y = std::numeric_limits<float>::quiet_NaN();
    if (frame == 8) boxes[333].max.y = boxes[333].min.y + 1.0f;
    categories[4'000] = frame >= 12 && frame < 16 ? 0u : 1u;
    masks[5'000] = frame == 18 ? 0u : 0xFFFFFFFFu;
    const physics::FilterArrays filter{.categories = categories, .masks = masks};
    excluding.update(boxes, filter);
    oracle.update(boxes, filter);
    const bool reused = excluding.stats().listing_reused;
    EXPECT_TRUE(same_pair_set(sorted_copy(oracle.find_pairs()), excluding.find_pairs()))
        << "seed " << seed << ", frame " << frame << (reused ? " (kept listing)" : "");
    EXPECT_EQ(excluding.stats().excluded_boxes, frame >= 4 && frame < 8 ? 1u : 0u)
        << "frame " << frame;
    if (frame >= 4 && frame % 4 == 0) {
      EXPECT_FALSE(reused) << "frame " << frame << ": listed afresh";
    } else if (frame == 3) {
      EXPECT_TRUE(reused) << "frame " << frame << ": on the kept listing";
    }
    reused_later += frame > 4 && reused ? 1 : 0;
    jitter(boxes, 0.002f, seed + static_cast<std::uint32_t>(frame));
  }
  EXPECT_GE(reused_later, 4u) << "seed " << seed << ": listings kept again after the changes";

  // Rejecting: the box that turns invalid in a frame on a kept listing is named.
  boxes = make_boxes(8'009, BoxScene::Uniform, seed);
  physics::BroadPhase rejecting({.backend = rsw::Backend::Cuda});
  for (int frame = 0; frame < 4; ++frame)
    rejecting.update(boxes);
  ASSERT_TRUE(rejecting.stats().listing_reused);
  boxes[777].min.z = std::numeric_limits<float>::infinity();
  try {
    rejecting.update(boxes);
    FAIL() << "accepted an invalid box";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("box 777"), std::string::npos) << error.what();
  }
  boxes[777].min.z = boxes[777].max.z - 1.0f;
  rejecting.update(boxes);
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), rejecting.find_pairs())) << "seed " << seed;
}

TEST(BroadPhaseKeptListing, NothingListedOrABoxOutOfEveryPairTurningInvalidIsSeen) {
  RSW_REQUIRE_CUDA_DEVICE();
  // Every box invalid and excluded, frame after frame: nothing listed, no listing kept.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<physics::Aabb> invalid(1'001, physics::Aabb{{0, 0, 0}, {nan, 1, 1}});
  physics::BroadPhase excluding(
      {.backend = rsw::Backend::Cuda, .invalid_boxes = physics::InvalidBoxes::Exclude});
  for (int frame = 0; frame < 5; ++frame) {
    excluding.update(invalid);
    EXPECT_TRUE(excluding.find_pairs().empty()) << "frame " << frame;
    EXPECT_EQ(excluding.stats().excluded_boxes, invalid.size()) << "frame " << frame;
  }

  // A box of category 0 is listed nowhere; turning invalid in a frame on a kept listing, it is
  // named as in any frame.
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(5'003, BoxScene::Uniform, seed);
  std::vector<std::uint32_t> categories(boxes.size(), 1u);
  categories[42] = 0;
  physics::BroadPhase rejecting({.backend = rsw::Backend::Cuda});
  for (int frame = 0; frame < 4; ++frame)
    rejecting.update(boxes, {.categories = categories});
  ASSERT_TRUE(rejecting.stats().listing_reused) << "seed " << seed;
  boxes[42].min.x = nan;
  try {
    rejecting.update(boxes, {.categories = categories});
    FAIL() << "accepted an invalid box of category 0";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("box 42"), std::string::npos) << error.what();
  }
}

TEST(BroadPhaseKeptListing, PairsOutgrowingTheirBufferOnAKeptListingAreAllFound) {
  // Dense boxes that all grow a little: the frame stays on the kept listing, and its pairs
  // outgrow the buffer sized from the frames before (grown, tested again).
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(30'011, BoxScene::Uniform, seed, 10.0);
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  for (int frame = 0; frame < 3; ++frame)
    broad_phase.update(boxes);
  const std::size_t pairs_before = broad_phase.stats().pairs;
  for (physics::Aabb& box : boxes) {  // a twentieth of the edge (1) on every side
    box.min = {box.min.x - 0.05f, box.min.y - 0.05f, box.min.z - 0.05f};
    box.max = {box.max.x + 0.05f, box.max.y + 0.05f, box.max.z + 0.05f};
  }
  broad_phase.update(boxes);
  EXPECT_TRUE(broad_phase.stats().listing_reused) << "seed " << seed;
  EXPECT_GT(broad_phase.stats().pairs, pairs_before * 5 / 4) << "seed " << seed;
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs())) << "seed " << seed;
}

TEST(BroadPhaseKeptListing, OtherBoxesOrAnotherRequestListAfresh) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(6'007, BoxScene::Uniform, seed);
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  for (int frame = 0; frame < 3; ++frame)
    broad_phase.update(boxes);
  ASSERT_TRUE(broad_phase.stats().listing_reused);
  boxes.pop_back();  // a box fewer
  broad_phase.update(boxes);
  EXPECT_FALSE(broad_phase.stats().listing_reused);
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs())) << "seed " << seed;
  broad_phase.update(boxes);
  broad_phase.update(boxes);
  ASSERT_TRUE(broad_phase.stats().listing_reused);
  physics::BroadPhaseOptions options = broad_phase.options();
  options.mode = physics::SweepMode::AxisSweep;
  broad_phase.set_options(options);
  broad_phase.update(boxes);
  EXPECT_FALSE(broad_phase.stats().listing_reused) << "another mode";
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs())) << "seed " << seed;
  const physics::DeviceAabbStore device_boxes = on_device(boxes);
  broad_phase.update(device_boxes.view());
  broad_phase.update(device_boxes.view());
  EXPECT_TRUE(broad_phase.stats().listing_reused) << "device arrays";
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), to_host(broad_phase.find_pairs_device())))
      << "seed " << seed;
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

// Boxes as Aabb records in device memory: every backend finds the oracle's pairs (the GPU
// reading them where they lie, six floats apart), and the frame's queries read them too.
TEST(BroadPhaseDeviceInput, DeviceRecordsGiveThePairsAndAnswerQueries) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(7'919, BoxScene::Mixed, seed);
  std::vector<std::uint32_t> worlds(boxes.size());
  std::mt19937 generator(seed);
  for (std::uint32_t& world : worlds)
    world =
        generator() % 17 == 0 ? physics::kAllWorlds : static_cast<std::uint32_t>(generator() % 3);
  const auto expected = oracle_pairs(boxes, {.worlds = worlds});
  DeviceBuffer<physics::Aabb> device_boxes;
  DeviceBuffer<std::uint32_t> device_worlds;
  device_boxes.upload(boxes);
  device_worlds.upload(worlds);
  std::vector<physics::Aabb> regions;
  std::vector<physics::Ray> rays;
  for (std::size_t k = 0; k < 61; ++k) {
    const physics::Aabb& box = boxes[(k * 131) % boxes.size()];
    regions.push_back({{box.min.x - 1, box.min.y - 1, box.min.z - 1}, box.max});
    rays.push_back({box.min, {1, 0.5f, -0.25f}});
  }
  physics::BroadPhase reference({.backend = rsw::Backend::Cpu});
  reference.update(boxes, {.worlds = worlds});
  const auto reference_hits = reference.query(regions, {.world = 1});
  const std::vector<physics::BoxQueryHit> expected_hits(reference_hits.begin(),
                                                        reference_hits.end());
  const auto expected_rays = reference.raycast(rays);
  const std::vector<physics::BoxRayHit> expected_ray_hits(expected_rays.begin(),
                                                          expected_rays.end());
  for (const rsw::Backend backend : {rsw::Backend::Cuda, rsw::Backend::Cpu}) {
    for (const bool brute_force : {false, true}) {
      const std::string context = "seed " + std::to_string(seed) + ", " +
                                  std::string(to_string(backend)) +
                                  (brute_force ? ", brute force" : "");
      physics::BroadPhase broad_phase({.backend = backend, .brute_force = brute_force});
      broad_phase.update(device_boxes.span(), {.worlds = device_worlds.span()});
      EXPECT_TRUE(same_pair_set(expected, broad_phase.find_pairs())) << context;
      const auto hits = broad_phase.query(regions, {.world = 1});
      EXPECT_TRUE(std::ranges::equal(hits, expected_hits)) << context;
      const auto ray_hits = broad_phase.raycast(rays);
      ASSERT_EQ(ray_hits.size(), expected_ray_hits.size()) << context;
      for (std::size_t k = 0; k < ray_hits.size(); ++k) {
        EXPECT_EQ(ray_hits[k].ray, expected_ray_hits[k].ray) << context;
        EXPECT_EQ(ray_hits[k].box, expected_ray_hits[k].box) << context;
        EXPECT_EQ(ray_hits[k].t, expected_ray_hits[k].t) << context;
      }
    }
  }
  // An invalid record is named, as from any other form.
  std::vector<physics::Aabb> spoiled = boxes;
  spoiled[4'001].max.y = std::numeric_limits<float>::quiet_NaN();
  device_boxes.upload(spoiled);
  physics::BroadPhase gpu({.backend = rsw::Backend::Cuda});
  try {
    gpu.update(device_boxes.span());
    ADD_FAILURE() << "an invalid box was taken";
  } catch (const rsw::Error& error) {
    EXPECT_NE(std::string(error.what()).find("4001"), std::string::npos) << error.what();
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

// A world scene's boxes and filter arrays in device memory.
struct DeviceWorldScene {
  physics::DeviceAabbStore boxes;
  DeviceBuffer<std::uint32_t> categories;
  DeviceBuffer<std::uint32_t> masks;
  DeviceBuffer<std::uint32_t> worlds;

  explicit DeviceWorldScene(const WorldScene& scene) : boxes(on_device(scene.boxes)) {
    categories.upload(scene.categories);
    masks.upload(scene.masks);
    worlds.upload(scene.worlds);
  }
  physics::DeviceFilterArrays filter() const {
    return {categories.span(), masks.span(), worlds.span()};
  }
};

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
      const DeviceWorldScene on_gpu(scene);
      broad_phase.update(on_gpu.boxes.view(), on_gpu.filter());
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

// A scene with its worlds in runs, as batched simulators lay them out: the boxes ordered by
// world (rising ids), the shared boxes at the front, at the back or among the runs.
WorldScene in_runs(const WorldScene& scene, std::mt19937& random) {
  std::vector<std::size_t> order(scene.boxes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, {}, [&](std::size_t i) { return scene.worlds[i]; });
  const auto shared_begin = std::ranges::find_if(
      order, [&](std::size_t i) { return scene.worlds[i] == physics::kAllWorlds; });
  std::vector<std::size_t> shared(shared_begin, order.end());
  order.erase(shared_begin, order.end());
  const int place = std::uniform_int_distribution<int>(0, 2)(random);
  for (const std::size_t box : shared) {
    std::size_t at = place == 0 ? 0 : order.size();
    if (place == 2) {  // between two runs, or inside one: a world's boxes need not be adjacent
      at = std::uniform_int_distribution<std::size_t>(0, order.size())(random);
    }
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), box);
  }
  WorldScene ordered;
  for (const std::size_t i : order) {
    ordered.boxes.push_back(scene.boxes[i]);
    ordered.worlds.push_back(scene.worlds[i]);
    if (!scene.categories.empty()) {
      ordered.categories.push_back(scene.categories[i]);
      ordered.masks.push_back(scene.masks[i]);
    }
  }
  const char* places[] = {"front", "back", "among the runs"};
  ordered.description = scene.description + ", in runs, shared at the " + places[place];
  return ordered;
}

// Whether the GPU backend finds a scene's worlds in runs that fit its blocks, as
// WorldRuns::build judges it: worlds rising through the boxes, each in one run (shared boxes
// between its boxes allowed), and the widest stretch of a run (its boxes and the shared ones
// up to the next run; the first run's from box 0, the last's to the end) together with every
// shared box within 512.
bool runs_fit(const WorldScene& scene) {
  std::vector<std::size_t> starts;
  std::size_t shared = 0;
  std::optional<std::uint32_t> previous;
  for (std::size_t i = 0; i < scene.worlds.size(); ++i) {
    const std::uint32_t world = scene.worlds[i];
    if (world == physics::kAllWorlds) {
      ++shared;
      continue;
    }
    if (previous && *previous > world) return false;
    if (!previous || *previous != world) starts.push_back(i);
    previous = world;
  }
  if (starts.empty() || shared > 512) return false;
  std::size_t widest = 0;
  for (std::size_t r = 0; r < starts.size(); ++r) {
    const std::size_t first = r == 0 ? 0 : starts[r];
    const std::size_t end = r + 1 < starts.size() ? starts[r + 1] : scene.worlds.size();
    widest = std::max(widest, end - first);
  }
  return widest + shared <= 512;
}

bool valid_box(const physics::Aabb& box) {
  const float low[3] = {box.min.x, box.min.y, box.min.z};
  const float high[3] = {box.max.x, box.max.y, box.max.z};
  for (int axis = 0; axis < 3; ++axis) {
    if (!std::isfinite(low[axis]) || !std::isfinite(high[axis]) || low[axis] > high[axis])
      return false;
  }
  return true;
}

// Whether a frame's worlds are small enough for runs to be looked for after it, as the GPU
// backend judges it: at most 256 valid boxes (shared ones included) for each world id in the
// span of its valid boxes' ids. One world of 460 boxes is not; of 257, not until one of its
// boxes is NaN.
bool worlds_small(const WorldScene& scene) {
  std::uint32_t low = physics::kAllWorlds;
  std::uint32_t high = 0;
  std::size_t valid = 0;
  for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
    if (!valid_box(scene.boxes[i])) continue;
    ++valid;
    if (scene.worlds[i] > physics::kMaxWorld) continue;
    low = std::min(low, scene.worlds[i]);
    high = std::max(high, scene.worlds[i]);
  }
  return low <= high &&
         static_cast<double>(valid) <= 256.0 * (static_cast<double>(high - low) + 1.0);
}

// Whether the last frame swept the worlds by their runs: no sort of every box, no cells.
bool swept_by_runs(const physics::BroadPhase& broad_phase) {
  return broad_phase.stats().sort.count == 0 && broad_phase.stats().cells == 0;
}

TEST(BroadPhaseWorldsGpu, WorldsInRunsAgreeWithTheReferenceFrameAfterFrame) {
  // From the second frame of a scene whose worlds come in runs, a block sweeps each run
  // whole. Nine frames a scene, boxes jittered between them: a NaN box (excluded) in frame 2,
  // a world all NaN in 3, a world's box made shared in 4 (out of its run: the frame goes to the
  // cells, which find the new runs), back in its world in 6, and the first world box moved to
  // the last world in 7 (no runs then: the cells from there on).
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> jitter(-0.05f, 0.05f);
  for (int scene_index = 0; scene_index < 3 * kWorldLayouts; ++scene_index) {
    const auto layout = static_cast<WorldLayout>(scene_index % kWorldLayouts);
    WorldScene scene = in_runs(make_world_scene(layout, 20011, random), random);
    const bool device = scene_index % 3 == 2;
    const bool grouped = scene_index % 2 == 1;
    physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda,
                                     .invalid_boxes = physics::InvalidBoxes::Exclude,
                                     .sorted_pairs = scene_index % 4 == 0,
                                     .group_by_world = grouped});
    physics::BroadPhase cpu({.backend = rsw::Backend::Cpu,
                             .invalid_boxes = physics::InvalidBoxes::Exclude,
                             .group_by_world = true});
    std::vector<std::size_t> world_boxes;  // boxes not shared
    for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
      if (scene.worlds[i] != physics::kAllWorlds) world_boxes.push_back(i);
    }
    const std::size_t some_box = world_boxes.empty() ? 0 : world_boxes[world_boxes.size() / 2];
    const std::uint32_t world = world_boxes.empty() ? 0 : scene.worlds[some_box];
    const std::uint32_t other_world = world_boxes.empty() ? 0 : scene.worlds[world_boxes.back()];
    // Whether runs were found after a frame (its worlds small, in runs that fit the blocks).
    bool found_runs[9] = {};
    bool search_waits = false;
    bool out_of_runs = false;
    for (int frame = 0; frame < 9; ++frame) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", scene " + std::to_string(scene_index) +
                   ": " + scene.description + (device ? ", device arrays" : "") + ", frame " +
                   std::to_string(frame));
      for (physics::Aabb& box : scene.boxes) {
        const physics::Vec3 move{jitter(random), jitter(random), jitter(random)};
        box = {{box.min.x + move.x, box.min.y + move.y, box.min.z + move.z},
               {box.max.x + move.x, box.max.y + move.y, box.max.z + move.z}};
      }
      const float nan = std::numeric_limits<float>::quiet_NaN();
      if (!world_boxes.empty()) {
        if (frame == 2) scene.boxes[some_box].min.x = nan;
        if (frame == 3 && other_world != world) {
          for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
            if (scene.worlds[i] == other_world) scene.boxes[i].max.z = nan;
          }
        }
        if (frame == 4) scene.worlds[some_box] = physics::kAllWorlds;
        if (frame == 6) scene.worlds[some_box] = world;
        if (frame == 7 && scene.worlds[world_boxes.front()] != other_world) {
          scene.worlds[world_boxes.front()] = other_world;  // the first box in the last world
          out_of_runs = true;
        }
      }
      if (device) {
        const DeviceWorldScene on_gpu(scene);
        broad_phase.update(on_gpu.boxes.view(), on_gpu.filter());
        ASSERT_TRUE(
            same_pair_set(reference_world_pairs(scene), to_host(broad_phase.find_pairs_device())));
      } else {
        broad_phase.update(scene.boxes, scene.filter());
        ASSERT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));
      }
      if (grouped && frame < 3) {
        ASSERT_TRUE(
            grouped_by_world(scene, broad_phase.find_pairs(), broad_phase.world_pair_offsets()));
      } else if (grouped) {  // the reference counts the worlds of invalid boxes too: the CPU's
        cpu.update(scene.boxes, scene.filter());
        const std::span<const std::uint32_t> offsets = broad_phase.world_pair_offsets();
        const std::span<const std::uint32_t> cpu_offsets = cpu.world_pair_offsets();
        ASSERT_TRUE(std::ranges::equal(offsets, cpu_offsets));
        const physics::PairView pairs = broad_phase.find_pairs();
        const physics::PairView cpu_pairs = cpu.find_pairs();
        ASSERT_TRUE(std::ranges::equal(pairs, cpu_pairs)) << "pairs in (world, a, b) order";
      }
      if (frame >= 2 && !world_boxes.empty()) {
        EXPECT_GT(broad_phase.stats().excluded_boxes, 0u);
      }
      // Runs found after a frame serve until a box changes world (frames 4, 6 and 7).
      const auto found_since = [&](int first) {
        return std::any_of(found_runs + first, found_runs + frame,
                           [](bool found) { return found; });
      };
      const bool by_runs = ((frame >= 1 && frame <= 3) && found_since(0)) ||
                           (frame == 5 && found_runs[4]) ||
                           (frame >= 7 && !out_of_runs && found_since(6));
      EXPECT_EQ(swept_by_runs(broad_phase), by_runs);
      // After a frame of the cells whose worlds were small, runs are looked for; a search
      // that fails waits 32 frames (past this script) before the next.
      const bool small = worlds_small(scene);
      const bool fit = runs_fit(scene);
      found_runs[frame] = !search_waits && small && fit;
      if (!by_runs && small && !fit) search_waits = true;
    }
  }
}

TEST(BroadPhaseWorldsGpu, WorldsInRunsOfEveryWidthAgreeWithTheReference) {
  // Runs of awkward widths (empty, one box, a warp and one either side, primes, up to 500
  // boxes: several boxes a thread), dense enough that most boxes meet, with a shared ground;
  // filter bits on every other scene; host and device arrays.
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  std::mt19937 random(seed);
  const std::size_t widths[] = {0, 1, 2, 7, 31, 32, 33, 63, 64, 65, 127, 129, 251, 257, 500};
  for (const std::size_t width : widths) {
    WorldScene scene;
    const std::size_t world_count = width > 100 ? 7 : 97;
    for (std::size_t w = 0; w < world_count; ++w) {
      const std::size_t size = w % 3 == 1 ? width / 2 : width;  // some narrower runs
      for (std::size_t i = 0; i < size; ++i) {
        scene.boxes.push_back(world_box(random));
        scene.worlds.push_back(static_cast<std::uint32_t>(2 * w + 5));
      }
    }
    scene.boxes.push_back({{-1, -1, -1}, {9, 0.5f, 9}});  // the ground, at the back
    scene.worlds.push_back(physics::kAllWorlds);
    if (width % 2 == 1) {
      std::uniform_int_distribution<std::uint32_t> bits(0, 3);
      for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
        scene.categories.push_back(1u << bits(random));
        scene.masks.push_back(~(1u << bits(random)));
      }
    }
    SCOPED_TRACE("seed " + std::to_string(seed) + ", runs of " + std::to_string(width));
    physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
    const std::vector<physics::Pair> expected = reference_world_pairs(scene);
    for (int frame = 0; frame < 3; ++frame) {
      if (frame == 2) {
        const DeviceWorldScene on_gpu(scene);
        broad_phase.update(on_gpu.boxes.view(), on_gpu.filter());
        ASSERT_TRUE(same_pair_set(expected, to_host(broad_phase.find_pairs_device())));
      } else {
        broad_phase.update(scene.boxes, scene.filter());
        ASSERT_TRUE(same_pair_set(expected, broad_phase.find_pairs()));
      }
      if (width > 0) {
        const physics::BroadPhaseStats& stats = broad_phase.stats();
        EXPECT_EQ(swept_by_runs(broad_phase), frame > 0) << "frame " << frame;
        // A frame of runs times its sweep alone; the frame of the cells before it, every stage.
        EXPECT_GT(stats.sweep_ms, 0.0);
        EXPECT_EQ(stats.keys_ms > 0.0 && stats.sort_ms > 0.0 && stats.list_ms > 0.0, frame == 0)
            << "frame " << frame;
      }
    }
  }
}

TEST(BroadPhaseWorldsGpu, BoxesFoundNotInRunsAreLookedAtAgainLater) {
  // Worlds interleaved are swept by the cells or small worlds; once the boxes are put in runs
  // (same count), the runs are looked for again within 32 frames. An inverted box in a frame
  // of runs under InvalidBoxes::Reject is an error naming it, and the next frame is whole.
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = fresh_box_seed();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  WorldScene scene;
  for (std::uint32_t i = 0; i < 3001; ++i) {
    scene.boxes.push_back(world_box(random));
    scene.worlds.push_back(i % 100);  // interleaved: world 0, 1, ..., 99, 0, 1, ...
  }
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  broad_phase.update(scene.boxes, scene.filter());
  ASSERT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));
  broad_phase.update(scene.boxes, scene.filter());
  EXPECT_FALSE(swept_by_runs(broad_phase));
  std::ranges::sort(scene.worlds);
  int frames = 0;
  for (; frames < 40 && !swept_by_runs(broad_phase); ++frames) {
    broad_phase.update(scene.boxes, scene.filter());
    ASSERT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));
  }
  EXPECT_LE(frames, 34) << "runs found again";
  EXPECT_TRUE(swept_by_runs(broad_phase));

  const std::size_t bad = 1234;
  const physics::Aabb kept = scene.boxes[bad];
  scene.boxes[bad].max.y = -100.0f;  // inverted
  try {
    broad_phase.update(scene.boxes, scene.filter());
    FAIL() << "an inverted box was taken";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("box " + std::to_string(bad)), std::string::npos)
        << error.what();
  }
  // A failed frame drops the backend's state: the next frame starts afresh, by the cells,
  // and finds the runs for the one after.
  scene.boxes[bad] = kept;
  for (const bool by_runs : {false, true}) {
    broad_phase.update(scene.boxes, scene.filter());
    EXPECT_TRUE(same_pair_set(reference_world_pairs(scene), broad_phase.find_pairs()));
    EXPECT_EQ(swept_by_runs(broad_phase), by_runs);
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
