#include "world_bench.hpp"

#include <chrono>
#include <cstdio>
#include <random>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/physics/world.hpp"
#include "rsw/workloads/box_scenes.hpp"

namespace rsw::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string share_name(double share) {
  char name[32];
  std::snprintf(name, sizeof(name), "static%g", share);
  return name;
}

// The scene: the first `statics` boxes static, the rest moving; each step jitters the moving
// ones (untimed) and hands them over from device arrays (the GPU) or host arrays (the CPU).
struct Scene {
  std::vector<physics::Aabb> boxes;
  std::size_t statics = 0;
  std::mt19937 generator{std::random_device{}()};

  std::span<physics::Aabb> moving() { return std::span(boxes).subspan(statics); }
  void jitter(float motion) {
    workloads::jitter(moving(), motion, static_cast<std::uint32_t>(generator()));
  }
};

Row world_row(Scene& scene, rsw::Backend backend, const WorldBenchOptions& options,
              const std::string& dist) {
  const bool on_device = backend == rsw::Backend::Cuda;
  physics::World world({.backend = backend, .stage_times = options.stage_times});
  std::vector<physics::ProxyId> ids(scene.boxes.size());
  world.create(std::span(scene.boxes).first(scene.statics), {.motion = physics::Motion::Static},
               std::span(ids).first(scene.statics));
  world.create(scene.moving(), {}, std::span(ids).subspan(scene.statics));
  const std::span<const physics::ProxyId> moving_ids = std::span(ids).subspan(scene.statics);
  DeviceBuffer<physics::ProxyId> device_ids;
  DeviceBuffer<physics::Aabb> device_boxes;
  if (on_device) device_ids.upload(moving_ids);
  world.step();  // the statics listed: not part of a steady step

  StageProfiler profiler({.history_frames = options.frames});
  constexpr std::string_view kStages[] = {"statics", "moving", "query", "pair_sort", "events"};
  std::size_t found = 0;
  std::size_t lost = 0;
  for (std::size_t frame = 0; frame < options.warmup + options.frames; ++frame) {
    if (frame == options.warmup) profiler.reset();
    scene.jitter(options.motion);
    if (on_device) {
      device_boxes.upload(scene.moving());
      synchronize(nullptr);
    }
    const Clock::time_point start = Clock::now();
    if (on_device) {
      world.move(device_ids.span(), device_boxes.span());
      world.step();
      (void)world.events_device();
    } else {
      world.move(moving_ids, scene.moving());
      world.step();
      (void)world.events();
    }
    const physics::WorldStats& stats = world.stats();
    profiler.add_sample("step", ms_since(start), rsw::Backend::Cpu);
    profiler.add_sample("world_step", stats.total_ms, rsw::Backend::Cpu);
    const double times[] = {stats.statics_ms, stats.moving_ms, stats.query_ms, stats.pair_sort_ms,
                            stats.events_ms};
    for (std::size_t stage = 0; stage < std::size(kStages); ++stage)
      profiler.add_sample(kStages[stage], times[stage], rsw::Backend::Cpu);
    if (frame >= options.warmup) {
      found += stats.found;
      lost += stats.lost;
    }
    profiler.end_frame();
  }
  Row row = row_from_profile(profiler, "step");
  row.bench = "world";
  row.algo = std::string(on_device ? "cuda" : "cpu") + "-world";
  row.n = scene.boxes.size();
  row.dist = dist;
  row.mode = "step+events";
  row.metrics["step_ms"] = profiler.stats("world_step")->median_ms;  // step() alone
  if (options.stage_times) {
    for (std::string_view stage : kStages)
      row.metrics[std::string(stage) + "_ms"] = profiler.stats(stage)->median_ms;
  }
  const physics::WorldStats& stats = world.stats();
  row.metrics["pairs"] = stats.pairs;
  row.metrics["static_pairs"] = stats.static_pairs;
  row.metrics["moving_pairs"] = stats.moving_pairs;
  row.metrics["found_per_step"] = static_cast<double>(found) / static_cast<double>(options.frames);
  row.metrics["lost_per_step"] = static_cast<double>(lost) / static_cast<double>(options.frames);
  row.metrics["candidates"] = stats.candidates;
  return row;
}

constexpr std::string_view kFrameStages[] = {"keys", "sort", "list", "sweep", "pair_sort"};

// A BroadPhase frame of every box, static ones included, as a user without World runs it.
Row frame_row(Scene& scene, rsw::Backend backend, bool sorted_pairs,
              const WorldBenchOptions& options, const std::string& dist) {
  const bool on_device = backend == rsw::Backend::Cuda;
  physics::BroadPhase broad_phase(
      {.backend = backend, .sorted_pairs = sorted_pairs, .stage_times = options.stage_times});
  physics::AabbStore host;
  physics::DeviceAabbStore device;
  StageProfiler profiler({.history_frames = options.frames});
  for (std::size_t frame = 0; frame < options.warmup + options.frames; ++frame) {
    if (frame == options.warmup) profiler.reset();
    scene.jitter(options.motion);
    if (on_device) {
      host.assign(scene.boxes);
      device.upload(host.view());
      synchronize(nullptr);
    }
    if (on_device) {
      broad_phase.update(device.view());
      (void)broad_phase.find_pairs_device();
    } else {
      broad_phase.update(scene.boxes);
      (void)broad_phase.find_pairs();
    }
    // As radixsweep-bench broadphase times a frame: update() and find_pairs(), host clock.
    const physics::BroadPhaseStats& stats = broad_phase.stats();
    profiler.add_sample("frame", stats.total_ms, rsw::Backend::Cpu);
    const double times[] = {stats.keys_ms, stats.sort_ms, stats.list_ms, stats.sweep_ms,
                            stats.pair_sort_ms};
    for (std::size_t stage = 0; stage < std::size(kFrameStages); ++stage)
      profiler.add_sample(kFrameStages[stage], times[stage], rsw::Backend::Cpu);
    profiler.end_frame();
  }
  Row row = row_from_profile(profiler, "frame");
  row.bench = "world";
  row.algo = std::string(on_device ? "cuda" : "cpu") + (sorted_pairs ? "-frame-sorted" : "-frame");
  row.n = scene.boxes.size();
  row.dist = dist;
  row.mode = "frame";
  if (options.stage_times) {
    for (std::string_view stage : kFrameStages)
      row.metrics[std::string(stage) + "_ms"] = profiler.stats(stage)->median_ms;
  }
  row.metrics["pairs"] = broad_phase.stats().pairs;
  return row;
}

}  // namespace

void run_world_bench(const WorldBenchOptions& options, Report& report) {
  for (const std::size_t count : options.sizes) {
    for (const double share : options.static_shares) {
      if (!(share >= 0 && share <= 1)) {
        throw Error(ErrorKind::InvalidArgument, "--static takes shares in [0, 1]");
      }
      const std::string dist = share_name(share);
      Scene scene;
      scene.boxes = with_host_allocation(
          "the " + std::to_string(count) + " boxes", count * sizeof(physics::Aabb), [&] {
            return workloads::make_boxes(count, workloads::BoxScene::Uniform,
                                         std::random_device{}(), options.pairs_per_box);
          });
      scene.statics = static_cast<std::size_t>(share * static_cast<double>(count));
      for (const std::string& name : options.backends) {
        const rsw::Backend backend = rsw::parse_backend(name);
        const Row frame = frame_row(scene, backend, false, options, dist);
        const Row sorted = frame_row(scene, backend, true, options, dist);
        Row world = world_row(scene, backend, options, dist);
        world.metrics["vs_frame"] = frame.ms_median > 0 ? world.ms_median / frame.ms_median : 0.0;
        world.metrics["vs_frame_sorted"] =
            sorted.ms_median > 0 ? world.ms_median / sorted.ms_median : 0.0;
        report.add(frame);
        report.add(sorted);
        report.add(std::move(world));
      }
    }
  }
}

}  // namespace rsw::bench
