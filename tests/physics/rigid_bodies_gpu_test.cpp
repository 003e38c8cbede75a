// Rigid bodies on the GPU against the CPU: random tumbling bodies of two shapes (sizes 0, 1,
// around the 256-thread block, a prime) with their brute-force pairs; boxes, one step's
// contacts and motion agree within float rounding, and the GPU's fixed-point sums give the
// same bits whatever order the pairs come in. Skipped, saying why, without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "rigid_checks.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/physics/rigid_bodies.hpp"
#include "rsw_test/cuda_device.hpp"

namespace rsw::physics {
namespace {

using testing::RigidSet;

struct OnDevice {
  std::array<DeviceBuffer<float>, 13> arrays;
  DeviceBuffer<std::uint32_t> shapes;
  explicit OnDevice(const RigidSet& set) {
    for (std::size_t k = 0; k < arrays.size(); ++k)
      arrays[k].upload(set.arrays[k]);
    shapes.upload(set.shapes);
  }
  DeviceRigidBodies view() {
    const auto s = [&](int k) { return arrays[static_cast<std::size_t>(k)].span(); };
    return {s(0), s(1), s(2),  s(3),  s(4),  s(5),  s(6),
            s(7), s(8), s(9), s(10), s(11), s(12), DeviceSpan<const std::uint32_t>(shapes.span())};
  }
  std::array<std::vector<float>, 13> read() const {
    std::array<std::vector<float>, 13> out;
    for (std::size_t k = 0; k < arrays.size(); ++k)
      out[k] = arrays[k].to_vector();
    return out;
  }
};

RigidWorld two_shapes() {
  return RigidWorld({testing::cornered_box({0.3f, 0.2f, 0.15f}, 0.08f, 1.0f),
                     testing::ball(0.25f, 2.0f)});
}

const RigidOptions kOptions{.stiffness = 3e3f, .damping = 5, .friction = 0.5f, .tangential_damping = 20};

class RigidGpu : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RigidGpu, BoxesContactsAndMotionFollowTheCpu) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::size_t count = GetParam();
  // Dense enough that most bodies touch a few others and the ground.
  const float side = 0.8f * std::cbrt(static_cast<float>(std::max<std::size_t>(count, 1)));
  RigidSet cpu = testing::random_rigid(count, side, 2, 17);
  OnDevice gpu(cpu);
  RigidWorld cpu_world = two_shapes();
  RigidWorld gpu_world = two_shapes();

  AabbStore cpu_boxes;
  cpu_world.bounds(cpu.view(), cpu_boxes);
  DeviceAabbStore gpu_boxes;
  gpu_world.bounds(gpu.view(), gpu_boxes);
  const AabbArrays cpu_view = cpu_boxes.view();
  const DeviceAabbArrays gpu_view = gpu_boxes.view();
  const std::span<const float> cpu_arrays[6] = {cpu_view.min_x, cpu_view.min_y, cpu_view.min_z,
                                                cpu_view.max_x, cpu_view.max_y, cpu_view.max_z};
  const DeviceSpan<const float> gpu_arrays[6] = {gpu_view.min_x, gpu_view.min_y, gpu_view.min_z,
                                                 gpu_view.max_x, gpu_view.max_y, gpu_view.max_z};
  for (int k = 0; k < 6; ++k) {
    std::vector<float> on_gpu(gpu_arrays[k].size);
    if (!on_gpu.empty()) {
      rsw::detail::copy_device_to_host(on_gpu.data(), gpu_arrays[k].data,
                                       on_gpu.size() * sizeof(float), nullptr);
    }
    synchronize(nullptr);
    ASSERT_EQ(on_gpu.size(), count);
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_NEAR(on_gpu[i], cpu_arrays[k][i], 1e-5f) << "box " << i << " array " << k;
  }

  const std::vector<Pair> pairs = testing::touching_boxes(cpu_boxes);
  DeviceBuffer<Pair> device_pairs;
  device_pairs.upload(pairs);
  cpu_world.collide(cpu.view(), pairs, kOptions);
  cpu_world.integrate(cpu.view(), 1e-3f, kOptions);
  gpu_world.collide(gpu.view(), device_pairs.span(), kOptions);
  gpu_world.integrate(gpu.view(), 1e-3f, kOptions);
  const std::array<std::vector<float>, 13> stepped = gpu.read();
  for (std::size_t k = 0; k < stepped.size(); ++k) {
    for (std::size_t i = 0; i < count; ++i) {
      const float expected = cpu.arrays[k][i];
      ASSERT_NEAR(stepped[k][i], expected, 2e-4f * (1 + std::abs(expected)))
          << "body " << i << " array " << k << " (" << pairs.size() << " pairs)";
    }
  }
  if (count > 100) {
    EXPECT_GT(pairs.size(), count / 4) << "the bodies touch";
  }
}

TEST_P(RigidGpu, PairOrderDoesNotChangeTheBits) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::size_t count = GetParam();
  const float side = 0.8f * std::cbrt(static_cast<float>(std::max<std::size_t>(count, 1)));
  const RigidSet start = testing::random_rigid(count, side, 2, 23);
  AabbStore boxes;
  RigidWorld host_world = two_shapes();
  RigidSet host = start;
  host_world.bounds(host.view(), boxes);
  std::vector<Pair> pairs = testing::touching_boxes(boxes);
  const auto run = [&](const std::vector<Pair>& order) {
    RigidWorld world = two_shapes();
    OnDevice gpu(start);
    DeviceBuffer<Pair> device_pairs;
    device_pairs.upload(order);
    for (int step = 0; step < 5; ++step) {
      world.collide(gpu.view(), device_pairs.span(), kOptions);
      world.integrate(gpu.view(), 1e-3f, kOptions);
    }
    return gpu.read();
  };
  const auto first = run(pairs);
  std::shuffle(pairs.begin(), pairs.end(), std::mt19937(5));
  EXPECT_EQ(run(pairs), first);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RigidGpu, ::testing::Values(0, 1, 255, 257, 1009));

}  // namespace
}  // namespace rsw::physics
