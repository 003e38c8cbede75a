// The boxes scene on the GPU against the CPU: the same rules compiled for both (no fused
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
