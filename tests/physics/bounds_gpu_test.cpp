// GPU bounds against the CPU twins, bit for bit.
#include <gtest/gtest.h>

#include <cstring>

#include "bounds_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw_test/cuda_device.hpp"

namespace rsw::test {
namespace {

template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
  DeviceBuffer<T> device;
  device.upload(host);
  return device;
}

// Spheres copied to device memory.
struct DeviceSpheres {
  DeviceBuffer<float> x, y, z, radius;

  explicit DeviceSpheres(const Spheres& spheres)
      : x(to_device(spheres.x)),
        y(to_device(spheres.y)),
        z(to_device(spheres.z)),
        radius(to_device(spheres.radius)) {}
  physics::DeviceSphereArrays view() const { return {x.span(), y.span(), z.span(), radius.span()}; }
};

// The same bits, axis by axis (NaN compares equal to NaN here).
void expect_same_boxes(const physics::AabbStore& cpu, physics::DeviceAabbStore& gpu) {
  ASSERT_EQ(cpu.size(), gpu.size());
  const std::vector<float>* mins[3] = {&cpu.min_x, &cpu.min_y, &cpu.min_z};
  const std::vector<float>* maxs[3] = {&cpu.max_x, &cpu.max_y, &cpu.max_z};
  for (int axis = 0; axis < 3; ++axis) {
    const auto gpu_min = to_host(gpu.min(axis));
    const auto gpu_max = to_host(gpu.max(axis));
    EXPECT_EQ(std::memcmp(gpu_min.data(), mins[axis]->data(), gpu_min.size() * sizeof(float)), 0)
        << "minima on axis " << axis;
    EXPECT_EQ(std::memcmp(gpu_max.data(), maxs[axis]->data(), gpu_max.size() * sizeof(float)), 0)
        << "maxima on axis " << axis;
  }
}

TEST(BoundsGpu, SpheresMatchTheCpu) {
  RSW_REQUIRE_CUDA_DEVICE();
  for (std::size_t count : {0u, 1u, 257u, 100'003u}) {
    const Spheres spheres = make_spheres(count, std::random_device{}());
    physics::AabbStore cpu;
    physics::compute_bounds(spheres.view(), cpu);
    const DeviceSpheres device_spheres(spheres);
    physics::DeviceAabbStore gpu;
    physics::compute_bounds(device_spheres.view(), gpu);
    expect_same_boxes(cpu, gpu);
  }
}

TEST(BoundsGpu, PointSetsMatchTheCpu) {
  RSW_REQUIRE_CUDA_DEVICE();
  for (std::size_t objects : {1u, 6u, 4099u}) {
    const std::uint32_t seed = std::random_device{}();
    PointSets sets = make_point_sets(awkward_object_sizes(objects, seed), seed);
    if (sets.x.size() > 40) sets.z[40] = std::numeric_limits<float>::quiet_NaN();
    if (sets.x.size() > 41) sets.x[41] = -0.0f;
    physics::AabbStore cpu;
    physics::compute_bounds(sets.view(), cpu);
    const auto x = to_device(sets.x);
    const auto y = to_device(sets.y);
    const auto z = to_device(sets.z);
    const auto first = to_device(sets.first);
    physics::DeviceAabbStore gpu;
    physics::compute_bounds(
        physics::DevicePointSetArrays{x.span(), y.span(), z.span(), first.span()}, gpu);
    expect_same_boxes(cpu, gpu);
  }
}

TEST(BoundsGpu, AFirstArrayThatDoesNotEndAtThePointCountIsRejected) {
  RSW_REQUIRE_CUDA_DEVICE();
  PointSets sets = make_point_sets({3, 4}, 5);
  sets.first.back() = 5;
  const auto x = to_device(sets.x);
  const auto first = to_device(sets.first);
  physics::DeviceAabbStore gpu;
  EXPECT_THROW(physics::compute_bounds(
                   physics::DevicePointSetArrays{x.span(), x.span(), x.span(), first.span()}, gpu),
               Error);
}

TEST(BoundsGpu, DeviceBoxesFeedTheBroadPhase) {
  RSW_REQUIRE_CUDA_DEVICE();
  const Spheres spheres = make_spheres(20'011, 9);
  const DeviceSpheres device_spheres(spheres);
  physics::DeviceAabbStore gpu;
  physics::compute_bounds(device_spheres.view(), gpu);
  physics::AabbStore cpu;
  physics::compute_bounds(spheres.view(), cpu);
  physics::BroadPhase on_gpu({.backend = rsw::Backend::Cuda, .sorted_pairs = true});
  on_gpu.update(gpu.view());
  physics::BroadPhase oracle({.brute_force = true, .sorted_pairs = true});
  oracle.update(cpu.view());
  const auto expected = oracle.find_pairs();
  const auto got = on_gpu.find_pairs();
  EXPECT_GT(expected.size(), 0u);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got.begin(), got.end()));
}

}  // namespace
}  // namespace rsw::test
