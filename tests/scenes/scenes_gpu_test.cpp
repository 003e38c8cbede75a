// The scenes on the GPU against the CPU. Boxes: the same rules compiled for both (no fused
// multiply-adds) step the same state, so every frame finds the same pairs; switching the
// backend mid-run keeps the state exactly. Skipped, saying why, without a CUDA device.
#include <gtest/gtest.h>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/scenes/scene.hpp"
#include "rsw_test/cuda_device.hpp"

namespace {

using rsw::Backend;
using rsw::scenes::Scene;

std::unique_ptr<Scene> started(Backend backend) {
  std::unique_ptr<Scene> scene = rsw::scenes::make_scene("boxes");
  scene->reset({.count = 30'011, .seed = 4, .backend = backend});
  return scene;
}

TEST(BoxesSceneGpu, EveryFrameFindsTheCpusPairs) {
  RSW_REQUIRE_CUDA_DEVICE();
  std::unique_ptr<Scene> cpu = started(Backend::Cpu);
  std::unique_ptr<Scene> gpu = started(Backend::Cuda);
  EXPECT_EQ(gpu->backend(), Backend::Cuda);
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < 40; ++frame) {
    cpu->step(profiler);
    gpu->step(profiler);
    profiler.end_frame();
    ASSERT_EQ(gpu->stats().pairs, cpu->stats().pairs) << "frame " << frame;
  }
}

TEST(BoxesSceneGpu, SwitchingBackendsMidRunKeepsTheState) {
  RSW_REQUIRE_CUDA_DEVICE();
  std::unique_ptr<Scene> reference = started(Backend::Cpu);
  std::unique_ptr<Scene> switching = started(Backend::Cpu);
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < 30; ++frame) {
    if (frame == 10) switching->set_backend(Backend::Cuda);
    if (frame == 20) switching->set_backend(Backend::Cpu);
    reference->step(profiler);
    switching->step(profiler);
    profiler.end_frame();
    ASSERT_EQ(switching->stats().pairs, reference->stats().pairs) << "frame " << frame;
  }
}

}  // namespace

namespace {

// The n-body scene on the GPU follows the CPU's over a short run (the sums differ in their
// last bits: gravity is summed by tiles with fused multiply-adds); it repeats itself bit for
// bit; and switching backends moves the bodies exactly.
TEST(NBodySceneGpu, FollowsTheCpuRepeatsItselfAndSwitchesExactly) {
  RSW_REQUIRE_CUDA_DEVICE();
  const auto started = [](rsw::Backend backend) {
    std::unique_ptr<rsw::scenes::Scene> scene = rsw::scenes::make_scene("nbody");
    scene->reset({.count = 4099, .seed = 8, .backend = backend});
    return scene;
  };
  std::unique_ptr<rsw::scenes::Scene> cpu = started(rsw::Backend::Cpu);
  std::unique_ptr<rsw::scenes::Scene> gpu = started(rsw::Backend::Cuda);
  std::unique_ptr<rsw::scenes::Scene> again = started(rsw::Backend::Cuda);
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < 10; ++frame) {
    cpu->step(profiler);
    gpu->step(profiler);
    again->step(profiler);
    profiler.end_frame();
  }
  const auto on_cpu = cpu->positions();
  const auto on_gpu = gpu->positions();
  ASSERT_EQ(on_gpu.size(), on_cpu.size());
  for (std::size_t i = 0; i < on_cpu.size(); ++i) {
    for (int axis = 0; axis < 3; ++axis)
      ASSERT_NEAR(on_gpu[i][axis], on_cpu[i][axis], 1e-3f) << "body " << i;
  }
  EXPECT_EQ(again->positions(), on_gpu);
  gpu->set_backend(rsw::Backend::Cpu);
  EXPECT_EQ(gpu->positions(), on_gpu);
  gpu->step(profiler);  // and runs on
  EXPECT_EQ(gpu->backend(), rsw::Backend::Cpu);
}

}  // namespace

namespace {

// The particles scene on the GPU follows the CPU's for a short while (contact forces are
// summed in another order and precision) and repeats itself bit for bit.
TEST(ParticlesSceneGpu, FollowsTheCpuAndRepeatsItself) {
  RSW_REQUIRE_CUDA_DEVICE();
  const auto started = [](rsw::Backend backend) {
    std::unique_ptr<rsw::scenes::Scene> scene = rsw::scenes::make_scene("particles");
    scene->reset({.count = 5003, .seed = 6, .backend = backend});
    return scene;
  };
  std::unique_ptr<rsw::scenes::Scene> cpu = started(rsw::Backend::Cpu);
  std::unique_ptr<rsw::scenes::Scene> gpu = started(rsw::Backend::Cuda);
  std::unique_ptr<rsw::scenes::Scene> again = started(rsw::Backend::Cuda);
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < 20; ++frame) {  // falling: the first contacts at the end
    cpu->step(profiler);
    gpu->step(profiler);
    again->step(profiler);
    profiler.end_frame();
  }
  const auto on_cpu = cpu->positions();
  const auto on_gpu = gpu->positions();
  for (std::size_t i = 0; i < on_cpu.size(); ++i) {
    for (int axis = 0; axis < 3; ++axis)
      ASSERT_NEAR(on_gpu[i][axis], on_cpu[i][axis], 1e-3f) << "particle " << i;
  }
  EXPECT_EQ(again->positions(), on_gpu);
}

}  // namespace
