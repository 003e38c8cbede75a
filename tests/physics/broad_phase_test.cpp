// The CPU broad phase against brute force (runs in CI), and the API as the README shows it.
#include "rsw/physics/broad_phase.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "broad_phase_cases.hpp"

namespace rsw::test {

rsw::Backend tested_backend() {
  return rsw::Backend::Cpu;
}
void require_tested_backend() {}

}  // namespace rsw::test

namespace {

// The snippet of the issue and the README, as written.
TEST(BroadPhaseApi, TheReadmeSnippetWorks) {
  using namespace rsw::physics;
  std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}}, {{1, 0.5f, 0.5f}, {2, 2, 2}}};
  BroadPhase bp({.backend = rsw::Backend::Auto});
  bp.update(boxes);
  int pairs = 0;
  for (const Pair& p : bp.find_pairs()) {  // p.a < p.b, each pair once
    EXPECT_LT(p.a, p.b);
    ++pairs;
  }
  EXPECT_EQ(pairs, 1);
}

TEST(BroadPhaseApi, BruteForceIsTheOracle) {
  using namespace rsw::physics;
  BroadPhase oracle({.brute_force = true});
  oracle.update(std::vector<Aabb>{
      {{0, 0, 0}, {1, 1, 1}}, {{2, 2, 2}, {3, 3, 3}}, {{0.5f, 0.5f, 0.5f}, {2, 2, 2}}});
  const auto pairs = oracle.find_pairs();
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], (Pair{0, 2}));
  EXPECT_EQ(pairs[1], (Pair{1, 2}));
}

TEST(BroadPhaseApi, BruteForceTimesOnlyItsValidationAndTests) {
  using namespace rsw::physics;
  BroadPhase oracle({.brute_force = true, .sorted_pairs = true});
  oracle.update(rsw::workloads::make_boxes(3'001, rsw::workloads::BoxScene::Uniform, 7));
  oracle.find_pairs();
  const BroadPhaseStats& stats = oracle.stats();
  EXPECT_GT(stats.keys_ms, 0.0);
  EXPECT_GT(stats.sweep_ms, 0.0);
  EXPECT_EQ(
      stats.upload_ms + stats.sort_ms + stats.list_ms + stats.pair_sort_ms + stats.download_ms,
      0.0);
  EXPECT_EQ(stats.backend, rsw::Backend::Cpu);
}

TEST(BroadPhaseApi, DevicePairsWithoutAGpuSaySo) {
  if (rsw::cuda_runtime_info().available()) GTEST_SKIP() << "a CUDA device is present";
  rsw::physics::BroadPhase bp({.backend = rsw::Backend::Cpu});
  bp.update(std::vector<rsw::physics::Aabb>{{{0, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {1, 1, 1}}});
  try {
    bp.find_pairs_device();
    FAIL() << "device pairs without a device";
  } catch (const rsw::Error& error) {
    EXPECT_EQ(error.kind(), rsw::ErrorKind::DeviceUnavailable) << error.what();
  }
  EXPECT_EQ(bp.find_pairs().size(), 1u) << "the frame survives a failed find_pairs_device()";
}

TEST(BroadPhaseApi, NoBoxesNoPairs) {
  rsw::physics::BroadPhase bp({.backend = rsw::Backend::Cpu});
  bp.update(std::span<const rsw::physics::Aabb>{});
  EXPECT_TRUE(bp.find_pairs().empty());
  EXPECT_EQ(bp.stats().pairs, 0u);
}

// The bench's scene of mixed sizes: each box's edges in [0.5, 1.5], every 1000th box's ten
// times that, every 100th of the others on whole-number faces; about 5 pairs a box.
TEST(BoxScenes, MixedSizesHaveTheirShape) {
  const std::uint32_t seed = rsw::test::fresh_box_seed();
  const std::size_t count = 100'003;
  const auto boxes = rsw::workloads::make_boxes(count, rsw::workloads::BoxScene::MixedSizes, seed);
  ASSERT_EQ(boxes.size(), count);
  for (std::size_t i = 0; i < count; ++i) {
    const rsw::physics::Aabb& box = boxes[i];
    const float edges[3] = {box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z};
    const float scale = i % 1000 == 0 ? 10.0f : 1.0f;
    // Edges as max - min: within a rounding of the corner (up to about 50) of those drawn.
    constexpr float kRounding = 1e-4f;
    for (const float edge : edges) {
      ASSERT_GE(edge, (i % 100 == 50 ? 1.0f : 0.5f * scale) - kRounding)
          << "box " << i << ", seed " << seed;
      ASSERT_LE(edge, (i % 100 == 50 ? 2.0f : 1.5f * scale) + kRounding)
          << "box " << i << ", seed " << seed;
    }
    if (i % 100 == 50) {
      const float faces[6] = {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z};
      for (const float face : faces)
        ASSERT_EQ(face, std::floor(face)) << "box " << i << ", seed " << seed;
    }
  }
  rsw::physics::BroadPhase bp({.backend = rsw::Backend::Cpu});
  bp.update(boxes);
  const double pairs_per_box = static_cast<double>(bp.find_pairs().size()) / count;
  EXPECT_GT(pairs_per_box, 4.0) << "seed " << seed;
  EXPECT_LT(pairs_per_box, 6.0) << "seed " << seed;
}

}  // namespace
