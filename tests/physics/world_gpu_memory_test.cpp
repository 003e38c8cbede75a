// World on the GPU, alone: a step in the steady state allocates no device memory. It reads
// the device's used memory, which any other process's allocations change, so CTest runs it
// with nothing beside it (SERIAL).
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <vector>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/physics/world.hpp"
#include "rsw/workloads/box_scenes.hpp"
#include "rsw_test/cuda_device.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;
using physics::Motion;
using physics::ProxyId;
using physics::World;

TEST(WorldGpu, AStepInTheSteadyStateAllocatesNoDeviceMemory) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  std::vector<Aabb> boxes = workloads::make_boxes(50'000, workloads::BoxScene::Uniform, seed);
  World world({.backend = rsw::Backend::Cuda});
  std::vector<ProxyId> ids(boxes.size());
  world.create(std::span(boxes).first(25'000), {.motion = Motion::Static},
               std::span(ids).first(25'000));
  world.create(std::span(boxes).subspan(25'000), {}, std::span(ids).subspan(25'000));
  DeviceBuffer<ProxyId> device_ids(std::span<const ProxyId>(ids).subspan(25'000));
  DeviceBuffer<Aabb> device_boxes(std::span<const Aabb>(boxes).subspan(25'000));
  const auto steps = [&](int count) {
    for (int step = 0; step < count; ++step) {
      world.move(device_ids.span(), device_boxes.span());
      world.step();
      (void)world.events_device();
      (void)world.pairs_device();
    }
  };
  steps(5);  // buffers grown to the scene's sizes
  const std::size_t before = rsw::memory_usage().device_used_bytes;
  steps(50);
  EXPECT_EQ(rsw::memory_usage().device_used_bytes, before) << "seed " << seed;
}

}  // namespace
}  // namespace rsw::test
