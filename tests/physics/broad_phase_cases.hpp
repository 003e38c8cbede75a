// The broad-phase cases every backend must pass, against the brute-force oracle. A test file
// includes this and defines tested_backend() (and skips without its device).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include "broad_phase_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/bounds.hpp"

namespace rsw::test {

/// The backend the including test file checks.
rsw::Backend tested_backend();
/// Skips the test when tested_backend() cannot run here.
void require_tested_backend();

inline std::uint32_t fresh_box_seed() {
  return std::random_device{}();
}

class BroadPhaseAgreement : public ::testing::TestWithParam<std::tuple<std::size_t, BoxScene>> {
 protected:
  void SetUp() override {
    require_tested_backend();
#if RSW_TESTS_UNDER_SANITIZERS
    // The oracle's n^2 tests of 100K boxes take minutes under the sanitizers; the 20K scenes
    // run the same paths there, and the plain build runs these.
    if (std::get<0>(GetParam()) > 20'011) GTEST_SKIP() << "100K scenes run in the plain build";
#endif
  }
};

TEST_P(BroadPhaseAgreement, SameSetAsBruteForce) {
  const auto [count, scene] = GetParam();
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(count, scene, seed);
  const auto expected = oracle_pairs(boxes);
  for (physics::SweepMode mode : {physics::SweepMode::Cells, physics::SweepMode::AxisSweep}) {
    const bool cells = mode == physics::SweepMode::Cells;
    physics::BroadPhase broad_phase({.backend = tested_backend(), .mode = mode});
    broad_phase.update(boxes);
    EXPECT_TRUE(same_pair_set(expected, broad_phase.find_pairs()))
        << "seed " << seed << (cells ? ", cells" : ", axis sweep");
    const physics::BroadPhaseStats& stats = broad_phase.stats();
    EXPECT_EQ(stats.backend, tested_backend());
    EXPECT_EQ(stats.boxes, count);
    EXPECT_EQ(stats.pairs, broad_phase.find_pairs().size());
    EXPECT_GE(stats.candidates, stats.pairs);
    if (cells && count > 0) {
      EXPECT_GE(stats.cells, 1u);
      EXPECT_GE(stats.cell_entries, count) << "every box is listed in at least one cell";
    }
  }
}

inline auto scene_test_name(
    const ::testing::TestParamInfo<std::tuple<std::size_t, BoxScene>>& param_info) {
  return to_string(std::get<1>(param_info.param)) + "_" +
         std::to_string(std::get<0>(param_info.param));
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, BroadPhaseAgreement,
    ::testing::Combine(::testing::Values(0, 1, 2, 1000, 20011),
                       ::testing::Values(BoxScene::Uniform, BoxScene::Clustered, BoxScene::Mixed,
                                         BoxScene::GiantBox, BoxScene::TouchingGrid,
                                         BoxScene::Degenerate, BoxScene::Hotspots,
                                         BoxScene::MixedSizes)),
    scene_test_name);

INSTANTIATE_TEST_SUITE_P(Large, BroadPhaseAgreement,
                         ::testing::Combine(::testing::Values(100'003),
                                            ::testing::Values(BoxScene::Uniform, BoxScene::Mixed,
                                                              BoxScene::MixedSizes)),
                         scene_test_name);

class BroadPhaseCases : public ::testing::Test {
 protected:
  void SetUp() override { require_tested_backend(); }
};

TEST_F(BroadPhaseCases, Densities) {
  for (double pairs_per_box : {0.1, 1.0, 5.0, 40.0}) {
    const std::uint32_t seed = fresh_box_seed();
    const auto boxes = make_boxes(5000, BoxScene::Uniform, seed, pairs_per_box);
    physics::BroadPhase broad_phase({.backend = tested_backend()});
    broad_phase.update(boxes);
    EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()))
        << "seed " << seed << ", density " << pairs_per_box;
  }
}

TEST_F(BroadPhaseCases, TheTwoBoxesOfTheReadme) {
  const std::vector<physics::Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}}, {{1, 0.5f, 0.5f}, {2, 2, 2}}};
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  broad_phase.update(boxes);
  ASSERT_EQ(broad_phase.find_pairs().size(), 1u) << "touching boxes overlap";
  EXPECT_EQ(broad_phase.find_pairs()[0], (physics::Pair{0, 1}));
}

TEST_F(BroadPhaseCases, EveryAxisGivesTheSameSet) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(8000, BoxScene::Clustered, seed);
  const auto expected = oracle_pairs(boxes);
  for (physics::SweepMode mode : {physics::SweepMode::Cells, physics::SweepMode::AxisSweep}) {
    for (physics::SweepAxis axis : {physics::SweepAxis::X, physics::SweepAxis::Y,
                                    physics::SweepAxis::Z, physics::SweepAxis::LargestVariance}) {
      physics::BroadPhase broad_phase({.backend = tested_backend(), .axis = axis, .mode = mode});
      broad_phase.update(boxes);
      EXPECT_TRUE(same_pair_set(expected, broad_phase.find_pairs()))
          << "seed " << seed << ", axis " << static_cast<int>(axis) << ", mode "
          << static_cast<int>(mode);
    }
  }
}

TEST_F(BroadPhaseCases, CellsTestFarFewerCandidatesThanTheAxisSweep) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(50'000, BoxScene::Uniform, seed);
  physics::BroadPhase cells({.backend = tested_backend(), .mode = physics::SweepMode::Cells});
  physics::BroadPhase axis({.backend = tested_backend(), .mode = physics::SweepMode::AxisSweep});
  cells.update(boxes);
  axis.update(boxes);
  EXPECT_EQ(cells.stats().pairs, axis.stats().pairs);
  EXPECT_LT(cells.stats().candidates * 10, axis.stats().candidates)
      << "cells " << cells.stats().candidates << ", axis sweep " << axis.stats().candidates;
}

TEST_F(BroadPhaseCases, LargestVarianceFindsTheLongAxis) {
  std::vector<physics::Aabb> boxes;
  for (int i = 0; i < 1000; ++i) {
    const auto z = static_cast<float>(i);  // spread along z
    boxes.push_back({{0, 0, z}, {1, 1, z + 1.5f}});
  }
  physics::BroadPhase broad_phase(
      {.backend = tested_backend(), .axis = physics::SweepAxis::LargestVariance});
  broad_phase.update(boxes);
  EXPECT_EQ(broad_phase.stats().sweep_axis, 2);
  EXPECT_EQ(broad_phase.find_pairs().size(), 999u);
}

TEST_F(BroadPhaseCases, FilterBits) {
  // The larger size splits the CPU sweep across threads.
  for (const std::size_t count : {std::size_t{6000}, std::size_t{40'009}}) {
    const std::uint32_t seed = fresh_box_seed();
    const auto boxes = make_boxes(count, BoxScene::Uniform, seed, 10.0);
    std::vector<std::uint32_t> categories(boxes.size());
    std::vector<std::uint32_t> masks(boxes.size());
    std::mt19937 generator(seed);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      categories[i] = 1u << (generator() % 4);
      masks[i] = generator() % 16;  // some boxes collide with nothing
    }
    const physics::FilterArrays filter{.categories = categories, .masks = masks};
    physics::BroadPhase broad_phase({.backend = tested_backend()});
    broad_phase.update(boxes, filter);
    const auto expected = oracle_pairs(boxes, filter);
    EXPECT_TRUE(same_pair_set(expected, broad_phase.find_pairs()))
        << "seed " << seed << ", n " << count;
    EXPECT_LT(expected.size(), oracle_pairs(boxes).size()) << "the filter must remove pairs";
  }
}

TEST_F(BroadPhaseCases, CategoriesWithFullMasksPairLikeNoFilter) {
  // Every mask admits every category, so only category 0 (a box that pairs with nothing)
  // removes pairs: the CPU sweep skips its filter lookups then.
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(40'009, BoxScene::Uniform, seed);
  std::vector<std::uint32_t> categories(boxes.size());
  const std::vector<std::uint32_t> masks(boxes.size(), ~0u);
  std::mt19937 generator(seed);
  for (std::uint32_t& category : categories)
    category = generator() % 8 == 0 ? 0u : 1u << (generator() % 32);
  const physics::FilterArrays filter{.categories = categories, .masks = masks};
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  broad_phase.update(boxes, filter);
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes, filter), broad_phase.find_pairs()))
      << "seed " << seed;
}

TEST_F(BroadPhaseCases, SmallMotionsOverManyFrames) {
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(30'011, BoxScene::Uniform, seed);
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  for (int frame = 0; frame < 6; ++frame) {
    broad_phase.update(boxes);
    ASSERT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()))
        << "seed " << seed << ", frame " << frame;
    jitter(boxes, 0.05f, seed + static_cast<std::uint32_t>(frame));
  }
}

TEST_F(BroadPhaseCases, StillBoxesSortInTheFirstOrderCheck) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(50'000, BoxScene::Uniform, seed);
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  broad_phase.update(boxes);
  broad_phase.update(boxes);  // keys built in last frame's order are sorted already
  EXPECT_TRUE(broad_phase.stats().sort.early_exit);
  EXPECT_EQ(broad_phase.stats().sort.passes_run, 0);
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()));
}

TEST_F(BroadPhaseCases, TheSortedOrderSurvivesATurnOfBruteForce) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(20'011, BoxScene::Clustered, seed);
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  broad_phase.update(boxes);
  physics::BroadPhaseOptions oracle = broad_phase.options();
  oracle.brute_force = true;
  broad_phase.set_options(oracle);
  broad_phase.update(boxes);
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs())) << "seed " << seed;
  oracle.brute_force = false;
  broad_phase.set_options(oracle);
  broad_phase.update(boxes);  // brute force handed back the order it was given
  EXPECT_TRUE(broad_phase.stats().sort.early_exit) << "seed " << seed;
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs())) << "seed " << seed;
}

// Each stage is the same work on every backend: a frame in cells with sorted pairs has all of
// them, and the transfers only on the GPU.
TEST_F(BroadPhaseCases, EveryStageIsTimedUnderItsName) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(50'021, BoxScene::Uniform, seed);
  physics::BroadPhase broad_phase({.backend = tested_backend(), .sorted_pairs = true});
  broad_phase.update(boxes);
  broad_phase.find_pairs();
  const physics::BroadPhaseStats& stats = broad_phase.stats();
  EXPECT_GT(stats.keys_ms, 0.0);
  EXPECT_GT(stats.sort_ms, 0.0);
  EXPECT_GT(stats.list_ms, 0.0);
  EXPECT_GT(stats.sweep_ms, 0.0);
  EXPECT_GT(stats.pair_sort_ms, 0.0);
  const bool gpu = tested_backend() == rsw::Backend::Cuda;
  EXPECT_EQ(stats.upload_ms > 0.0, gpu);
  EXPECT_EQ(stats.download_ms > 0.0, gpu);
  EXPECT_GE(stats.total_ms, stats.keys_ms + stats.sort_ms + stats.list_ms + stats.sweep_ms);
}

TEST_F(BroadPhaseCases, TeleportsAndChangingCounts) {
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  for (std::size_t count : {20'000u, 20'000u, 5'003u, 0u, 12'345u}) {
    const std::uint32_t seed = fresh_box_seed();
    const auto boxes = make_boxes(count, BoxScene::Mixed, seed);
    broad_phase.update(boxes);
    ASSERT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()))
        << "seed " << seed << ", n " << count;
  }
}

TEST_F(BroadPhaseCases, PairBufferGrowsWhenTheSceneGetsDenser) {
  // The GPU sizes its pair buffer from the last frame: a sparse frame, then a dense one,
  // must overflow it, grow it and test again rather than drop pairs.
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  for (double pairs_per_box : {0.05, 60.0, 0.05, 60.0}) {
    const std::uint32_t seed = fresh_box_seed();
    const auto boxes = make_boxes(20'011, BoxScene::Uniform, seed, pairs_per_box);
    broad_phase.update(boxes);
    ASSERT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs()))
        << "seed " << seed << ", " << pairs_per_box << " pairs per box";
  }
}

// The sorts a broad phase on the tested backend can take: the GPU ones need a device.
inline std::vector<sort::Algorithm> sorts_of_tested_backend() {
  if (tested_backend() != rsw::Backend::Cuda) return {sort::Algorithm::Cpu, sort::Algorithm::Auto};
  return {sort::Algorithm::Cpu, sort::Algorithm::Auto, sort::Algorithm::FourWay,
          sort::Algorithm::Onesweep};
}

TEST_F(BroadPhaseCases, ListingsGrowWhenBoxesCoverMoreCells) {
  // The GPU makes room for the cell listings before it counts them (as many as the last frame
  // had room for, at first three a box): a frame where every 50th box grows thirtyfold lists
  // those in hundreds of cells each, more than fit. The listings must grow and be made again,
  // with every sort (Onesweep reads their count on the device, the others read it back).
  const std::uint32_t seed = fresh_box_seed();
  const auto small = make_boxes(20'011, BoxScene::Uniform, seed);
  auto grown = small;
  for (std::size_t i = 0; i < grown.size(); i += 50) {
    physics::Aabb& box = grown[i];
    for (float physics::Vec3::*axis : {&physics::Vec3::x, &physics::Vec3::y, &physics::Vec3::z}) {
      const float centre = 0.5f * (box.min.*axis + box.max.*axis);
      const float half = 15.0f * (box.max.*axis - box.min.*axis);
      box.min.*axis = centre - half;
      box.max.*axis = centre + half;
    }
  }
  const auto small_pairs = oracle_pairs(small);
  const auto grown_pairs = oracle_pairs(grown);
  for (sort::Algorithm algorithm : sorts_of_tested_backend()) {
    physics::BroadPhase broad_phase({.backend = tested_backend(), .sort = algorithm});
    for (const bool is_grown : {false, true, false, true}) {
      const auto& boxes = is_grown ? grown : small;
      broad_phase.update(boxes);
      ASSERT_TRUE(same_pair_set(is_grown ? grown_pairs : small_pairs, broad_phase.find_pairs()))
          << "seed " << seed << (is_grown ? ", grown" : ", small") << ", "
          << sort::to_string(algorithm) << " sort";
      if (is_grown) {
        EXPECT_GT(broad_phase.stats().cell_entries, 3 * boxes.size());
      }
    }
  }
}

TEST_F(BroadPhaseCases, SortedPairOrderIsTheOraclesOrder) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(10'000, BoxScene::Clustered, seed);
  physics::BroadPhase broad_phase({.backend = tested_backend(), .sorted_pairs = true});
  broad_phase.update(boxes);
  const auto pairs = broad_phase.find_pairs();
  EXPECT_TRUE(std::ranges::equal(pairs, oracle_pairs(boxes))) << "seed " << seed;
}

TEST_F(BroadPhaseCases, EverySortGivesTheSameSet) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(10'000, BoxScene::Uniform, seed);
  const auto expected = oracle_pairs(boxes);
  for (sort::Algorithm algorithm : sorts_of_tested_backend()) {
    physics::BroadPhase broad_phase({.backend = tested_backend(), .sort = algorithm});
    broad_phase.update(boxes);
    EXPECT_TRUE(same_pair_set(expected, broad_phase.find_pairs()))
        << "seed " << seed << ", " << sort::to_string(algorithm);
  }
}

TEST_F(BroadPhaseCases, InvalidBoxesAreRejectedByIndex) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<physics::Aabb, std::string>> bad = {
      {{{0, nan, 0}, {1, 1, 1}}, "a non-finite coordinate on y"},
      {{{0, 0, 0}, {1, 1, inf}}, "a non-finite coordinate on z"},
      {{{2, 0, 0}, {1, 1, 1}}, "min > max on x"},
  };
  for (const auto& [box, reason] : bad) {
    auto boxes = make_boxes(100, BoxScene::Uniform, 1);
    boxes[37] = box;
    physics::BroadPhase broad_phase({.backend = tested_backend()});
    try {
      broad_phase.update(boxes);
      FAIL() << "accepted a box with " << reason;
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      const std::string message = error.what();
      EXPECT_NE(message.find("box 37 has " + reason), std::string::npos) << message;
    }
  }
}

TEST_F(BroadPhaseCases, InvalidBoxesCanBeExcluded) {
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(3000, BoxScene::Uniform, seed, 20.0);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  boxes[5].min.x = nan;
  boxes[6].max.y = -1e30f;  // min > max
  boxes[7].max.z = std::numeric_limits<float>::infinity();
  physics::BroadPhase broad_phase(
      {.backend = tested_backend(), .invalid_boxes = physics::InvalidBoxes::Exclude});
  broad_phase.update(boxes);
  EXPECT_EQ(broad_phase.stats().excluded_boxes, 3u);
  for (const physics::Pair& pair : broad_phase.find_pairs()) {
    EXPECT_TRUE(pair.a < 5 || pair.a > 7) << pair.a;
    EXPECT_TRUE(pair.b < 5 || pair.b > 7) << pair.b;
  }
  // The same set as the oracle with those boxes moved far away from everything.
  auto moved = boxes;
  for (std::size_t i : {5u, 6u, 7u}) {
    const auto far = 1e6f + static_cast<float>(i) * 10.0f;
    moved[i] = {{far, far, far}, {far + 1, far + 1, far + 1}};
  }
  EXPECT_TRUE(same_pair_set(oracle_pairs(moved), broad_phase.find_pairs())) << "seed " << seed;
}

TEST_F(BroadPhaseCases, InvalidBoxesAcrossChunksAreCountedAndTheFirstNamed) {
  // The CPU checks boxes in chunks of 64K on its threads: the first invalid box is named and
  // every one counted wherever the chunks end.
  const std::uint32_t seed = fresh_box_seed();
  auto boxes = make_boxes(200'003, BoxScene::Uniform, seed);
  const std::vector<std::size_t> invalid = {140'000, 70'000, 199'999, 70'001};
  for (const std::size_t index : invalid)
    boxes[index].min.y = std::numeric_limits<float>::quiet_NaN();
  physics::BroadPhase rejecting({.backend = tested_backend()});
  try {
    rejecting.update(boxes);
    FAIL() << "accepted invalid boxes";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("box 70000 has"), std::string::npos) << message;
  }
  physics::BroadPhase excluding(
      {.backend = tested_backend(), .invalid_boxes = physics::InvalidBoxes::Exclude});
  excluding.update(boxes);
  EXPECT_EQ(excluding.stats().excluded_boxes, invalid.size());
  for (const physics::Pair& pair : excluding.find_pairs()) {
    for (const std::size_t index : invalid) {
      EXPECT_NE(pair.a, index);
      EXPECT_NE(pair.b, index);
    }
  }
}

TEST_F(BroadPhaseCases, MismatchedArraysAreRejected) {
  const std::vector<float> three(3, 0.0f);
  const std::vector<float> two(2, 1.0f);
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  EXPECT_THROW(broad_phase.update(physics::AabbArrays{three, three, three, three, two, three}),
               Error);
  const auto boxes = make_boxes(10, BoxScene::Uniform, 3);
  const std::vector<std::uint32_t> categories(9, 1u);
  EXPECT_THROW(broad_phase.update(boxes, {categories, {}}), Error);
}

TEST_F(BroadPhaseCases, MoreBoxesThanTheIndexHoldsAreRejected) {
  // Sizes are checked before anything is read, so a view of 2^32 boxes needs no memory.
  const auto too_many = std::size_t{1} << 32;
  const DeviceSpan<const float> huge{nullptr, too_many};
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  try {
    broad_phase.update(physics::DeviceAabbArrays{huge, huge, huge, huge, huge, huge});
    FAIL() << "accepted 2^32 boxes";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("32 bits"), std::string::npos) << error.what();
  }
}

TEST_F(BroadPhaseCases, ArraysAndBoxesGiveTheSamePairs) {
  const std::uint32_t seed = fresh_box_seed();
  const auto boxes = make_boxes(4000, BoxScene::Clustered, seed);
  physics::AabbStore arrays;
  arrays.assign(boxes);
  physics::BroadPhase broad_phase({.backend = tested_backend()});
  broad_phase.update(arrays.view());
  EXPECT_TRUE(same_pair_set(oracle_pairs(boxes), broad_phase.find_pairs())) << "seed " << seed;
}

}  // namespace rsw::test
