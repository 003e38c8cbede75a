// Gravity and sphere contacts on the GPU against the CPU: sizes around the 256-body tile,
// clusters of overlapping spheres with their brute-force pairs; the GPU's contact sums are
// fixed point, so two runs (pairs in any order) give the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "dynamics_checks.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/physics/dynamics.hpp"
#include "rsw_test/cuda_device.hpp"

namespace rsw::physics {
namespace {

using testing::BodySet;

struct OnDevice {
  std::array<DeviceBuffer<float>, 8> arrays;
  std::array<DeviceBuffer<float>, 3> out;
  explicit OnDevice(const BodySet& set) {
    for (int k = 0; k < 8; ++k)
      arrays[k].upload(set.arrays[k]);
    for (auto& axis : out)
      axis.resize_discarding(set.size());
  }
  DeviceSphereBodies view() const {
    const auto s = [&](int k) { return DeviceSpan<const float>(arrays[k].span()); };
    return {s(0), s(1), s(2), s(3), s(4), s(5), s(6), s(7)};
  }
  DeviceAccelerations accelerations() { return {out[0].span(), out[1].span(), out[2].span()}; }
  std::array<std::vector<float>, 3> read() const {
    return {out[0].to_vector(), out[1].to_vector(), out[2].to_vector()};
  }
};

std::array<std::vector<float>, 3> on_cpu_gravity(const BodySet& set,
                                                 const GravityOptions& options) {
  std::array<std::vector<float>, 3> out;
  for (auto& axis : out)
    axis.resize(set.size());
  gravity(set.view(), {out[0], out[1], out[2]}, options);
  return out;
}

TEST(GravityGpu, MatchesTheCpuAroundTheTile) {
  RSW_REQUIRE_CUDA_DEVICE();
  const GravityOptions options{.constant = 1.5f, .softening = 0.05f};
  for (const std::size_t count : {0u, 1u, 2u, 255u, 256u, 257u, 1000u, 4099u}) {
    const BodySet set =
        testing::random_bodies(count, 4, 0.01f, static_cast<std::uint32_t>(count + 3));
    OnDevice device(set);
    gravity(device.view(), device.accelerations(), options);
    const auto gpu = device.read();
    const auto cpu = on_cpu_gravity(set, options);
    for (std::size_t i = 0; i < count; ++i) {
      const double magnitude = std::hypot(cpu[0][i], cpu[1][i], cpu[2][i]);
      for (int axis = 0; axis < 3; ++axis) {
        ASSERT_NEAR(gpu[axis][i], cpu[axis][i], 1e-4 * magnitude + 1e-6)
            << count << " bodies, body " << i << ", axis " << axis;
      }
    }
  }
}

TEST(SphereContactsGpu, MatchTheCpuAndRepeatBitForBit) {
  RSW_REQUIRE_CUDA_DEVICE();
  const BodySet set = testing::random_bodies(3001, 4, 0.15f, 11);  // ~10 neighbours each
  std::vector<Pair> pairs = testing::overlapping_pairs(set);
  ASSERT_GT(pairs.size(), 1000u);
  const ContactOptions options{.stiffness = 50, .damping = 2};
  std::array<std::vector<float>, 3> cpu;
  for (auto& axis : cpu)
    axis.assign(set.size(), 0.0f);
  SphereContacts contacts;
  contacts.add(set.view(), pairs, {cpu[0], cpu[1], cpu[2]}, options);

  OnDevice device(set);
  std::vector<std::array<std::vector<float>, 3>> runs;
  for (int run = 0; run < 2; ++run) {
    std::shuffle(pairs.begin(), pairs.end(), std::mt19937(run + 1));  // another order
    const DeviceBuffer<Pair> device_pairs(pairs);
    for (auto& axis : device.out)
      axis.fill_zero();
    contacts.add(device.view(), device_pairs.span(), device.accelerations(), options);
    runs.push_back(device.read());
  }
  EXPECT_EQ(runs[0], runs[1]) << "the same contacts in another order, the same bits";
  for (std::size_t i = 0; i < set.size(); ++i) {
    for (int axis = 0; axis < 3; ++axis)
      ASSERT_NEAR(runs[0][axis][i], cpu[axis][i], 1e-3 * (1 + std::abs(cpu[axis][i])))
          << "body " << i;
  }
}

}  // namespace
}  // namespace rsw::physics
