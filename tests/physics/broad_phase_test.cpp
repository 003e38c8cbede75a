// The CPU broad phase against brute force (runs in CI), and the API as the README shows it.
#include "rsw/physics/broad_phase.hpp"

#include <gtest/gtest.h>

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

}  // namespace
