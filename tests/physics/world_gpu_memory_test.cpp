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
#include "rsw_test/scoped_environment.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;
using physics::Motion;
using physics::ProxyId;
using physics::World;

// 50K proxies, the first `statics` static, moved by device arrays step after step: after a few
// steps, no step allocates device memory.
void expect_steady_steps_allocate_nothing(std::size_t statics) {
  const std::uint32_t seed = std::random_device{}();
  std::vector<Aabb> boxes = workloads::make_boxes(50'000, workloads::BoxScene::Uniform, seed);
  World world({.backend = rsw::Backend::Cuda});
  std::vector<ProxyId> ids(boxes.size());
  world.create(std::span(boxes).first(statics), {.motion = Motion::Static},
               std::span(ids).first(statics));
  world.create(std::span(boxes).subspan(statics), {}, std::span(ids).subspan(statics));
  DeviceBuffer<ProxyId> device_ids(std::span<const ProxyId>(ids).subspan(statics));
  DeviceBuffer<Aabb> device_boxes(std::span<const Aabb>(boxes).subspan(statics));
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

TEST(WorldGpu, AStepInTheSteadyStateAllocatesNoDeviceMemory) {
  RSW_REQUIRE_CUDA_DEVICE();
  expect_steady_steps_allocate_nothing(25'000);
}

// Without statics, swept in BroadPhase frames (as a world of more moving proxies than a grid
// serves).
TEST(WorldGpu, AStepSweptInAFrameInTheSteadyStateAllocatesNoDeviceMemory) {
  RSW_REQUIRE_CUDA_DEVICE();
  const ScopedEnvironment frames(kMovingSweep, "frame");
  expect_steady_steps_allocate_nothing(0);
}

}  // namespace
}  // namespace rsw::test
