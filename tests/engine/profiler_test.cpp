// StageProfiler on the host clock and with add_sample: per-frame sums, the rolling window,
// the statistics and the JSON export. GPU event timing is in profiler_gpu_test.cu.
#include "rsw/engine/profiler.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "rsw/engine/error.hpp"

namespace rsw {
namespace {

using namespace std::chrono_literals;

TEST(StageProfiler, TimesAHostStage) {
  StageProfiler profiler;
  {
    auto timer = profiler.time("sleep");
    std::this_thread::sleep_for(5ms);
  }
  profiler.end_frame();
  const auto stats = profiler.stats("sleep");
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->samples, 1u);
  EXPECT_EQ(stats->clock, Backend::Cpu);
  EXPECT_GE(stats->last_ms, 5.0);
  EXPECT_LT(stats->last_ms, 1000.0);
  EXPECT_EQ(profiler.frames(), 1u);
}

TEST(StageProfiler, AutoTimesOnTheHostWithoutADevice) {
  if (cuda_runtime_info().available()) GTEST_SKIP() << "a CUDA device is present";
  StageProfiler profiler;
  { auto timer = profiler.time("sort", Backend::Auto); }
  profiler.end_frame();
  EXPECT_EQ(profiler.stats("sort")->clock, Backend::Cpu);
  EXPECT_THROW((void)profiler.time("sort", Backend::Cuda), Error);
}

TEST(StageProfiler, StopEndsTheScopeOnce) {
  StageProfiler profiler;
  auto timer = profiler.time("early");
  timer.stop();
  std::this_thread::sleep_for(20ms);
  timer.stop();
  profiler.end_frame();
  EXPECT_LT(profiler.stats("early")->last_ms, 20.0);
}

TEST(StageProfiler, SumsAStageTimedSeveralTimesInOneFrame) {
  StageProfiler profiler;
  profiler.add_sample("sort", 1.5);
  profiler.add_sample("sort", 2.0);
  profiler.add_sample("sweep", 4.0);
  profiler.end_frame();
  EXPECT_DOUBLE_EQ(profiler.stats("sort")->last_ms, 3.5);
  EXPECT_DOUBLE_EQ(profiler.stats("sweep")->last_ms, 4.0);
  EXPECT_EQ(profiler.stats("sort")->samples, 1u);
}

TEST(StageProfiler, StagesKeepFirstUseOrderAndFrameTimeIsRecorded) {
  StageProfiler profiler;
  profiler.add_sample("aabb", 1);
  profiler.add_sample("sort", 1);
  profiler.end_frame();
  profiler.add_sample("sweep", 1);
  profiler.end_frame();
  const auto all = profiler.stats();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].name, "aabb");
  EXPECT_EQ(all[1].name, "sort");
  EXPECT_EQ(all[2].name, StageProfiler::kFrameStage);
  EXPECT_EQ(all[3].name, "sweep");
  EXPECT_EQ(all[2].samples, 2u);
  EXPECT_EQ(all[3].samples, 1u) << "a stage not timed in a frame gets no sample for it";
}

TEST(StageProfiler, KeepsARollingWindowWithMinMedianMax) {
  StageProfiler profiler({.history_frames = 4});
  for (double ms : {100.0, 5.0, 1.0, 3.0, 2.0, 4.0}) {
    profiler.add_sample("sort", ms);
    profiler.end_frame();
  }
  // The window holds the last four: 1, 3, 2, 4.
  EXPECT_EQ(profiler.history("sort"), (std::vector<double>{1, 3, 2, 4}));
  const StageStats stats = *profiler.stats("sort");
  EXPECT_EQ(stats.samples, 4u);
  EXPECT_DOUBLE_EQ(stats.last_ms, 4.0);
  EXPECT_DOUBLE_EQ(stats.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(stats.max_ms, 4.0);
  EXPECT_DOUBLE_EQ(stats.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(stats.mean_ms, 2.5);
  EXPECT_EQ(profiler.frames(), 6u);

  profiler.add_sample("sort", 7.0);
  profiler.end_frame();
  EXPECT_DOUBLE_EQ(profiler.stats("sort")->median_ms, 3.5);  // 3, 2, 4, 7
}

TEST(StageProfiler, UnknownStagesHaveNoStats) {
  StageProfiler profiler;
  EXPECT_FALSE(profiler.stats("nothing").has_value());
  EXPECT_TRUE(profiler.history("nothing").empty());
}

TEST(StageProfiler, ResetForgetsEverything) {
  StageProfiler profiler;
  profiler.add_sample("sort", 1);
  profiler.end_frame();
  profiler.reset();
  EXPECT_EQ(profiler.frames(), 0u);
  EXPECT_TRUE(profiler.stats().empty());
}

TEST(StageProfiler, ScopesOpenAcrossAResetAreDropped) {
  StageProfiler profiler;
  auto open = profiler.time("before reset");
  profiler.reset();
  open.stop();
  profiler.end_frame();
  EXPECT_FALSE(profiler.stats("before reset").has_value());
}

TEST(StageProfiler, ExportsJson) {
  StageProfiler profiler({.history_frames = 8});
  for (double ms : {1.0, 2.0, 3.0}) {
    profiler.add_sample("sort", ms);
    profiler.add_sample("gpu sort", ms / 2, Backend::Cuda);
    profiler.end_frame();
  }
  const auto document = nlohmann::json::parse(profiler.to_json());
  EXPECT_EQ(document["frames"], 3);
  EXPECT_EQ(document["history_frames"], 8);
  ASSERT_EQ(document["stages"].size(), 3u);
  const auto& sort = document["stages"][0];
  EXPECT_EQ(sort["name"], "sort");
  EXPECT_EQ(sort["clock"], "steady_clock");
  EXPECT_EQ(sort["samples"], 3);
  EXPECT_DOUBLE_EQ(sort["median_ms"], 2.0);
  EXPECT_DOUBLE_EQ(sort["min_ms"], 1.0);
  EXPECT_DOUBLE_EQ(sort["max_ms"], 3.0);
  EXPECT_DOUBLE_EQ(sort["last_ms"], 3.0);
  EXPECT_EQ(sort["history_ms"], (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(document["stages"][1]["clock"], "cuda_events");
  EXPECT_EQ(document["stages"][2]["name"], "frame");
}

TEST(StageProfiler, WritesJsonOrSaysWhyNot) {
  StageProfiler profiler;
  profiler.add_sample("sort", 1);
  profiler.end_frame();
  const auto path = std::filesystem::temp_directory_path() / "rsw_profiler_test.json";
  profiler.write_json(path.string());
  std::ifstream file(path);
  EXPECT_EQ(nlohmann::json::parse(file)["frames"], 1);
  std::filesystem::remove(path);

  try {
    profiler.write_json("/nonexistent-directory/stats.json");
    FAIL() << "writing into a missing directory succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(error.what()).find("/nonexistent-directory/stats.json"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace rsw
