// The frame plan's arithmetic, which the CPU and the GPU share (broad_phase/frame_plan.hpp):
// worlds' slots and grid cells fit the 30 bits of a listing's cell whatever the span of world
// ids; the small-worlds keys order boxes by world, then minimum, and a box's run reaches every
// box that overlaps it; the grid never has more cells than its limit.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <random>

#include "broad_phase/frame_plan.hpp"
#include "rsw/physics/aabb.hpp"

namespace rsw::physics::detail {
namespace {

// A summary of `count` unit-ish boxes spread over [0, extent]^3 (only the sums matter), of
// worlds low..high.
BoxSummary summary_of(std::uint64_t count, float extent, float size, std::uint32_t low,
                      std::uint32_t high) {
  BoxSummary summary = BoxSummary::empty();
  const float lows[2][3] = {{0, 0, 0}, {extent - size, extent - size, extent - size}};
  for (const auto& corner : lows) {
    const float high_corner[3] = {corner[0] + size, corner[1] + size, corner[2] + size};
    summary.add(corner, high_corner);
  }
  // The rest of the boxes as the first two, in bulk: what plan_grid reads is sums and counts.
  const double scale = static_cast<double>(count) / 2.0;
  for (int axis = 0; axis < 3; ++axis) {
    summary.extent_sum[axis] *= scale;
    summary.centre_sum[axis] *= scale;
    summary.centre_square_sum[axis] *= scale;
  }
  summary.valid = count;
  summary.add_world(low);
  summary.add_world(high);
  return summary;
}

TEST(FramePlanWorlds, SlotsAndGridCellsShareThirtyBits) {
  // Ten million tiny boxes over a wide range want the largest grid; the slots of the worlds'
  // ids take their bits first.
  for (const std::uint32_t span : {1u, 2u, 3u, 1000u, 1u << 20, kMaxWorld + 1}) {
    const BoxSummary summary = summary_of(10'000'000, 1000.0f, 0.01f, 0, span - 1);
    const FramePlan plan = plan_frame(summary, SweepAxis::X, SweepMode::Cells, true);
    const WorldCells& worlds = plan.worlds;
    SCOPED_TRACE("worlds 0.." + std::to_string(span - 1));
    ASSERT_TRUE(worlds.on);
    EXPECT_EQ(worlds.shared, span);
    const int slot_bits = static_cast<int>(std::bit_width(worlds.shared));
    EXPECT_LE(slot_bits + worlds.shift, 30);
    EXPECT_GE(plan.grid.cells(), 1u);
    EXPECT_LE(std::uint64_t{plan.grid.cells()}, std::uint64_t{1} << (30 - slot_bits));
    const std::uint32_t last_cell = worlds.cell(plan.grid.cells() - 1, kAllWorlds);
    EXPECT_LE(last_cell, kCellBits) << "the shared slot's last cell fits";
    EXPECT_TRUE(worlds.is_shared(last_cell));
    EXPECT_EQ(worlds.grid_cell(last_cell), plan.grid.cells() - 1);
    EXPECT_FALSE(worlds.is_shared(worlds.cell(0, span - 1)));
    EXPECT_LE(slot_bits + plan.world_keys.bits, 32) << "a small-worlds key fits 32 bits";
  }
}

TEST(FramePlanWorlds, AWorldsCellsAreItsOwn) {
  const BoxSummary summary = summary_of(100'000, 50.0f, 1.0f, 7, 7 + 499);
  const FramePlan plan = plan_frame(summary, SweepAxis::X, SweepMode::Cells, true);
  const WorldCells& worlds = plan.worlds;
  for (std::uint32_t grid_cell : {0u, plan.grid.cells() - 1}) {
    EXPECT_NE(worlds.cell(grid_cell, 7), worlds.cell(grid_cell, 8));
    EXPECT_NE(worlds.cell(grid_cell, 7 + 499), worlds.cell(grid_cell, kAllWorlds));
    EXPECT_EQ(worlds.grid_cell(worlds.cell(grid_cell, 300)), grid_cell);
  }
  // Cells sort by world first: every cell of world 8 after every cell of world 7.
  EXPECT_LT(worlds.cell(plan.grid.cells() - 1, 7), worlds.cell(0, 8));
  // Without world ids the cell is the grid cell.
  const FramePlan plain = plan_frame(summary, SweepAxis::X, SweepMode::Cells, false);
  EXPECT_FALSE(plain.worlds.on);
  EXPECT_EQ(plain.worlds.cell(5, 123), 5u);
}

TEST(FramePlanWorlds, SmallWorldKeysOrderByWorldThenMinimumAndRunsReachEveryOverlap) {
  const BoxSummary summary = summary_of(1'000'000, 20.0f, 1.0f, 0, 4095);
  const FramePlan plan = plan_frame(summary, SweepAxis::X, SweepMode::Cells, true);
  const WorldKeys& keys = plan.world_keys;
  std::mt19937 random(11);
  std::uniform_real_distribution<float> place(-5.0f, 25.0f);  // past the range: clamped
  std::uniform_int_distribution<std::uint32_t> world(0, 4095);
  for (int trial = 0; trial < 100'000; ++trial) {
    const float a = place(random);
    const float b = place(random);
    const std::uint32_t slot_a = plan.worlds.slot(world(random));
    const std::uint32_t slot_b = plan.worlds.slot(world(random));
    // Monotone in the minimum within a world, worlds first.
    if (a <= b) {
      ASSERT_LE(keys.key(slot_a, a), keys.key(slot_a, b)) << a << " " << b;
    }
    if (slot_a < slot_b) {
      ASSERT_LT(keys.key(slot_a, a), keys.key(slot_b, b));
    }
    ASSERT_EQ(keys.slot(keys.key(slot_a, a)), slot_a);
    // A box of minimum b that overlaps one of maximum a (b <= a) is in its run.
    if (b <= a) {
      ASSERT_LE(keys.step(b), keys.step(a));
    }
  }
  // Non-finite minima (excluded boxes) still get a step.
  EXPECT_EQ(keys.step(std::numeric_limits<float>::quiet_NaN()), 0u);
  EXPECT_EQ(keys.step(std::numeric_limits<float>::infinity()), (1u << keys.bits) - 1u);
}

TEST(FramePlan, TheGridKeepsToItsLimitWhenOneSideShrinksToACell) {
  // 32 boxes along a line on u, all in one cell across: the grid may have 32 cells at most.
  BoxSummary summary = BoxSummary::empty();
  for (int i = 0; i < 32; ++i) {
    const float low[3] = {0, static_cast<float>(i) * 30.0f, 0};
    const float high[3] = {0.1f, static_cast<float>(i) * 30.0f + 0.1f, 0.1f};
    summary.add(low, high);
  }
  const CellGrid grid = plan_grid(summary, 0);
  EXPECT_LE(grid.cells(), 32u);
  EXPECT_GE(grid.cells(), 1u);
  const CellGrid capped = plan_grid(summary, 0, 8.0);
  EXPECT_LE(capped.cells(), 8u);
}

TEST(FramePlanWorldRuns, BlocksAreAWarpUpToThirtyTwoBoxesAndTwiceAsWideForEachDoubling) {
  EXPECT_EQ(run_block_threads(0), 32u);
  EXPECT_EQ(run_block_threads(1), 32u);
  EXPECT_EQ(run_block_threads(32), 32u);
  EXPECT_EQ(run_block_threads(33), 64u);
  EXPECT_EQ(run_block_threads(65), 128u);
  EXPECT_EQ(run_block_threads(129), 256u);
  EXPECT_EQ(run_block_threads(kRunRoom), 256u);
}

TEST(FramePlanWorldRuns, TheAxisIsTheRequestedOneOrThatOfTheLargestSpread) {
  const float spread[3] = {1.0f, 5.0f, 2.0f};
  EXPECT_EQ(plan_run_axis(spread, SweepAxis::LargestVariance, 0), 1);
  EXPECT_EQ(plan_run_axis(spread, SweepAxis::Z, 0), 2);
  EXPECT_EQ(plan_run_axis(spread, SweepAxis::X, 2), 0);
  const float none[3] = {0.0f, 0.0f, 0.0f};
  EXPECT_EQ(plan_run_axis(none, SweepAxis::LargestVariance, 2), 2) << "nothing sampled: as before";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float broken[3] = {nan, nan, nan};
  EXPECT_EQ(plan_run_axis(broken, SweepAxis::LargestVariance, 1), 1);
}

}  // namespace
}  // namespace rsw::physics::detail
