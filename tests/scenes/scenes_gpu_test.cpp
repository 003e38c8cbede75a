// The scenes on the GPU against the CPU, and picking on the GPU against brute force. Boxes: the
// same rules compiled for both (no fused multiply-adds) step the same state, so every frame finds
// the same pairs; switching the backend mid-run keeps the state exactly. Skipped, saying why,
// without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "picking_checks.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/scenes/scene.hpp"
#include "rsw_test/cuda_device.hpp"
#include "scene_runs.hpp"

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

// Runs `scene` on the CPU and twice on the GPU for `frames` frames from the same start: the
// GPU's bodies are within `tolerance` of the CPU's (their sums differ in order and rounding)
// and the two GPU runs agree bit for bit. Returns one of the GPU runs.
std::unique_ptr<rsw::scenes::Scene> expect_gpu_follows_cpu(const char* scene, std::size_t count,
                                                           std::uint32_t seed, int frames,
                                                           float tolerance) {
  const auto started = [&](rsw::Backend backend) {
    std::unique_ptr<rsw::scenes::Scene> run = rsw::scenes::make_scene(scene);
    run->reset({.count = count, .seed = seed, .backend = backend});
    return run;
  };
  std::unique_ptr<rsw::scenes::Scene> cpu = started(rsw::Backend::Cpu);
  std::unique_ptr<rsw::scenes::Scene> gpu = started(rsw::Backend::Cuda);
  std::unique_ptr<rsw::scenes::Scene> again = started(rsw::Backend::Cuda);
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < frames; ++frame) {
    cpu->step(profiler);
    gpu->step(profiler);
    again->step(profiler);
    profiler.end_frame();
  }
  const auto on_cpu = cpu->positions();
  const auto on_gpu = gpu->positions();
  EXPECT_EQ(on_gpu.size(), on_cpu.size());
  for (std::size_t i = 0; i < std::min(on_cpu.size(), on_gpu.size()); ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      if (std::abs(on_gpu[i][axis] - on_cpu[i][axis]) > tolerance) {
        ADD_FAILURE() << scene << ": body " << i << " axis " << axis << " at " << on_gpu[i][axis]
                      << " on the GPU, " << on_cpu[i][axis] << " on the CPU";
        return gpu;
      }
    }
  }
  EXPECT_EQ(again->positions(), on_gpu) << scene << ": two GPU runs differ";
  return gpu;
}

// N-body: gravity is summed by tiles with fused multiply-adds on the GPU; switching backends
// moves the bodies exactly and the run goes on.
TEST(NBodySceneGpu, FollowsTheCpuRepeatsItselfAndSwitchesExactly) {
  RSW_REQUIRE_CUDA_DEVICE();
  std::unique_ptr<rsw::scenes::Scene> gpu = expect_gpu_follows_cpu("nbody", 4099, 8, 10, 1e-3f);
  const auto on_gpu = gpu->positions();
  gpu->set_backend(rsw::Backend::Cpu);
  EXPECT_EQ(gpu->positions(), on_gpu);
  rsw::StageProfiler profiler;
  gpu->step(profiler);
  EXPECT_EQ(gpu->backend(), rsw::Backend::Cpu);
}

// Particles: falling, then the first contacts (summed in fixed point on the GPU).
TEST(ParticlesSceneGpu, FollowsTheCpuAndRepeatsItself) {
  RSW_REQUIRE_CUDA_DEVICE();
  expect_gpu_follows_cpu("particles", 5003, 6, 20, 1e-3f);
}

}  // namespace

namespace {

// Chairs: falling, then landing on the ground and on each other (rigid contacts summed in
// fixed point on the GPU: landings amplify the rounding, hence a horizon of a few frames of
// contact); switching backends mid-run moves the bodies exactly.
TEST(ChairsSceneGpu, FollowsTheCpuRepeatsItselfAndSwitchesExactly) {
  RSW_REQUIRE_CUDA_DEVICE();
  std::unique_ptr<rsw::scenes::Scene> gpu = expect_gpu_follows_cpu("chairs", 601, 3, 20, 5e-3f);
  const auto on_gpu = gpu->positions();
  gpu->set_backend(rsw::Backend::Cpu);
  EXPECT_EQ(gpu->positions(), on_gpu);
  rsw::StageProfiler profiler;
  gpu->step(profiler);
  const auto on_cpu = gpu->positions();
  gpu->set_backend(rsw::Backend::Cuda);
  EXPECT_EQ(gpu->positions(), on_cpu) << "the state went back up unchanged";
  gpu->step(profiler);
  EXPECT_EQ(gpu->backend(), rsw::Backend::Cuda);
  EXPECT_NE(gpu->positions(), on_cpu) << "and the GPU runs on from it";
}

}  // namespace

namespace {

// Worlds: every world's chairs falling onto their own ground in one region of space, the
// broad phase keeping the worlds apart by their ids on the GPU as on the CPU.
TEST(WorldsSceneGpu, FollowsTheCpuAndRepeatsItself) {
  RSW_REQUIRE_CUDA_DEVICE();
  std::unique_ptr<rsw::scenes::Scene> gpu = expect_gpu_follows_cpu("worlds", 6 * 97, 3, 20, 5e-3f);
  EXPECT_EQ(gpu->stats().worlds, 97u);
}

}  // namespace

namespace {

// Picking on the GPU: every scene's pick, partners and regions against brute force over the
// boxes it reports (each copied from the device), as on the CPU.
TEST(ScenePickingGpu, AgreesWithBruteForce) {
  RSW_REQUIRE_CUDA_DEVICE();
  using rsw::scenes::testing::PickRules;
  const struct {
    const char* scene;
    std::size_t count;
    int frames;
    PickRules rules;
  } cases[] = {{"boxes", 2003, 5, {}},
               {"chairs", 211, 60, {.extra_objects = 1}},
               {"particles", 3001, 20, {.terrain_hides = true}},
               {"nbody", 1009, 10, {}},
               {"worlds", 127, 30, {.group = 6, .slack = 1e-4f}}};
  for (const auto& pick : cases) {
    SCOPED_TRACE(pick.scene);
    std::unique_ptr<rsw::scenes::Scene> scene = rsw::scenes::make_scene(pick.scene);
    scene->reset({.count = pick.count, .seed = 3, .backend = rsw::Backend::Cuda});
    rsw::scenes::testing::advance(*scene, pick.frames);
    EXPECT_GT(rsw::scenes::testing::check_picking(*scene, pick.rules, 12), 0);
  }
}

}  // namespace
