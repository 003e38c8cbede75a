// StageProfiler with CUDA events: times match the GPU work, end_frame() does not wait for the
// GPU, samples arrive a frame or more later, and frames in flight are bounded.
#include <gtest/gtest.h>

#include <chrono>

#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw_test/cuda_device.hpp"
#include "spin_kernel.hpp"

namespace rsw {
namespace {

using Clock = std::chrono::steady_clock;

double host_ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

TEST(StageProfilerGpu, EventTimesMatchTheGpuWork) {
  RSW_REQUIRE_CUDA_DEVICE();
  Stream stream;
  StageProfiler profiler;
  {
    auto timer = profiler.time("spin", Backend::Cuda, stream.handle());
    test::spin_on_gpu(20.0, stream.handle());
  }
  profiler.end_frame();
  profiler.flush();
  const StageStats stats = *profiler.stats("spin");
  EXPECT_EQ(stats.clock, Backend::Cuda);
  EXPECT_EQ(stats.samples, 1u);
  EXPECT_GE(stats.last_ms, 19.9);
  EXPECT_LT(stats.last_ms, 40.0);
}

TEST(StageProfilerGpu, AutoUsesEventsWhenADeviceIsPresent) {
  RSW_REQUIRE_CUDA_DEVICE();
  StageProfiler profiler;
  {
    auto timer = profiler.time("spin", Backend::Auto);
    test::spin_on_gpu(1.0);
  }
  profiler.end_frame();
  profiler.flush();
  EXPECT_EQ(profiler.stats("spin")->clock, Backend::Cuda);
}

TEST(StageProfilerGpu, EndFrameDoesNotWaitForTheGpu) {
  RSW_REQUIRE_CUDA_DEVICE();
  Stream stream;
  StageProfiler profiler;
  const Clock::time_point start = Clock::now();
  {
    auto timer = profiler.time("spin", Backend::Cuda, stream.handle());
    test::spin_on_gpu(300.0, stream.handle());
  }
  profiler.end_frame();
  EXPECT_LT(host_ms_since(start), 100.0) << "end_frame() waited for the GPU";
  EXPECT_EQ(profiler.stats("spin")->samples, 0u) << "the sample should still be pending";

  stream.synchronize();
  profiler.end_frame();  // the next frame picks it up without flush()
  ASSERT_TRUE(profiler.stats("spin").has_value());
  EXPECT_EQ(profiler.stats("spin")->samples, 1u);
  EXPECT_GE(profiler.stats("spin")->last_ms, 299.0);
}

TEST(StageProfilerGpu, SumsScopesOfOneFrame) {
  RSW_REQUIRE_CUDA_DEVICE();
  Stream stream;
  StageProfiler profiler;
  for (int part = 0; part < 3; ++part) {
    auto timer = profiler.time("sort", Backend::Cuda, stream.handle());
    test::spin_on_gpu(5.0, stream.handle());
  }
  profiler.end_frame();
  profiler.flush();
  EXPECT_EQ(profiler.stats("sort")->samples, 1u);
  EXPECT_GE(profiler.stats("sort")->last_ms, 14.9);
  EXPECT_LT(profiler.stats("sort")->last_ms, 30.0);
}

TEST(StageProfilerGpu, BoundsTheFramesInFlight) {
  RSW_REQUIRE_CUDA_DEVICE();
  Stream stream;
  StageProfiler profiler({.max_frames_in_flight = 2});
  for (int frame = 0; frame < 6; ++frame) {
    {
      auto timer = profiler.time("spin", Backend::Cuda, stream.handle());
      test::spin_on_gpu(20.0, stream.handle());
    }
    profiler.end_frame();
  }
  // Frames more than two behind were waited for: at least frames 0..3 are in the history.
  EXPECT_GE(profiler.stats("spin")->samples, 4u);
  profiler.flush();
  EXPECT_EQ(profiler.stats("spin")->samples, 6u);
  for (double ms : profiler.history("spin"))
    EXPECT_GE(ms, 19.9);
}

TEST(StageProfilerGpu, ResetDropsPendingSamples) {
  RSW_REQUIRE_CUDA_DEVICE();
  StageProfiler profiler;
  auto open = profiler.time("spin", Backend::Cuda);
  test::spin_on_gpu(1.0);
  profiler.reset();
  open.stop();  // its sample was dropped; stopping must not touch the new state
  profiler.end_frame();
  profiler.flush();
  EXPECT_FALSE(profiler.stats("spin").has_value());
}

}  // namespace
}  // namespace rsw
