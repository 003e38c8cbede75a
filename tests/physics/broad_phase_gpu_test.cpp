// The GPU broad phase against brute force, and switching backends between frames.
#include <gtest/gtest.h>

#include "broad_phase_cases.hpp"
#include "rsw_test/cuda_device.hpp"

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

}  // namespace rsw::test
