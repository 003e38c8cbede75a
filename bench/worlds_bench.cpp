#include "worlds_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <string>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/broad_phase.hpp"
#if RSW_HAVE_CUDA
#include "world_all_pairs.hpp"
#endif

namespace rsw::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Larger worlds skip the all-pairs baseline: its tests grow with the square of a world's boxes.
constexpr std::size_t kAllPairsMostBoxesPerWorld = 16384;

// World w's boxes are [w * per_world, (w + 1) * per_world): unit cubes in a cube region sized
// so that a box meets about `pairs_per_box` others of its world. Corners are multiples of
// 2^-10 and the regions lie a whole number of units apart, so that moving a world to its own
// region is exact in float and the pairs stay the same.
struct WorldsScene {
  std::vector<physics::Aabb> boxes;    // every world in the same region
  std::vector<physics::Aabb> apart;    // each world moved to a region of its own
  std::vector<std::uint32_t> worlds;   // one per box
  std::vector<std::uint32_t> offsets;  // worlds + 1
};

WorldsScene make_scene(std::size_t worlds, std::size_t per_world, double pairs_per_box,
                       std::uint32_t seed) {
  WorldsScene scene;
  const std::size_t count = worlds * per_world;
  // Two unit cubes overlap when their corners lie within 1 on every axis: a box meets
  // (per_world - 1) * (2 / side)^3 others.
  const double side =
      2.0 * std::cbrt(std::max(1.0, static_cast<double>(per_world - 1) / pairs_per_box));
  const auto grid = static_cast<std::size_t>(std::ceil(std::cbrt(static_cast<double>(worlds))));
  const double pitch = std::ceil(side + 2.0);
  scene.boxes = with_host_allocation("the worlds' boxes", count * sizeof(physics::Aabb),
                                     [&] { return std::vector<physics::Aabb>(count); });
  scene.apart = with_host_allocation("the worlds' boxes apart", count * sizeof(physics::Aabb),
                                     [&] { return std::vector<physics::Aabb>(count); });
  scene.worlds.resize(count);
  scene.offsets.resize(worlds + 1);
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> place(0.0f, static_cast<float>(side - 1.0));
  for (std::size_t w = 0; w < worlds; ++w) {
    scene.offsets[w] = static_cast<std::uint32_t>(w * per_world);
    const physics::Vec3 shift{static_cast<float>(pitch * static_cast<double>(w % grid)),
                              static_cast<float>(pitch * static_cast<double>(w / grid % grid)),
                              static_cast<float>(pitch * static_cast<double>(w / grid / grid))};
    for (std::size_t i = w * per_world; i < (w + 1) * per_world; ++i) {
      const auto corner = [&] { return std::floor(place(random) * 1024.0f) / 1024.0f; };
      const physics::Vec3 low{corner(), corner(), corner()};
      scene.boxes[i] = {low, {low.x + 1, low.y + 1, low.z + 1}};
      scene.apart[i] = {{low.x + shift.x, low.y + shift.y, low.z + shift.z},
                        {low.x + 1 + shift.x, low.y + 1 + shift.y, low.z + 1 + shift.z}};
      scene.worlds[i] = static_cast<std::uint32_t>(w);
    }
  }
  scene.offsets[worlds] = static_cast<std::uint32_t>(count);
  return scene;
}

// Frames of `frame` (which returns the pairs it found), timed on the host clock.
template <class Frame>
Row time_frames(const WorldsBenchOptions& options, Frame&& frame, std::size_t& pairs) {
  StageProfiler profiler({.history_frames = options.frames});
  for (std::size_t i = 0; i < options.warmup + options.frames; ++i) {
    if (i == options.warmup) profiler.reset();
    const Clock::time_point start = Clock::now();
    pairs = frame();
    profiler.add_sample("frame",
                        std::chrono::duration<double, std::milli>(Clock::now() - start).count(),
                        Backend::Cpu);
    profiler.end_frame();
  }
  return row_from_profile(profiler, "frame");
}

}  // namespace

void run_worlds_bench(const WorldsBenchOptions& options, Report& report) {
  for (const std::size_t worlds : options.worlds) {
    for (const std::size_t per_world : options.boxes_per_world) {
      const std::size_t count = worlds * per_world;
      if (count > options.most_boxes) continue;
      const WorldsScene scene =
          make_scene(worlds, per_world, options.pairs_per_box, std::random_device{}());
      const std::string dist = std::to_string(per_world) + "/world";
      std::optional<std::size_t> expected;  // the first method's pairs
      const auto add = [&](Row row, const std::string& algo, std::size_t pairs) {
        row.bench = "worlds";
        row.algo = algo;
        row.n = count;
        row.dist = dist;
        row.mode = std::to_string(worlds) + " worlds";
        row.metrics["worlds"] = worlds;
        row.metrics["boxes_per_world"] = per_world;
        row.metrics["pairs"] = pairs;
        row.metrics["us_per_world"] = row.ms_median * 1000.0 / static_cast<double>(worlds);
        if (!expected) expected = pairs;
        if (pairs != *expected) {
          report.fail(algo + " found " + std::to_string(pairs) + " pairs in " +
                      std::to_string(worlds) + " worlds of " + std::to_string(per_world) +
                      " boxes, where the first method found " + std::to_string(*expected));
        }
        report.add(std::move(row));
      };
      for (const std::string& name : options.backends) {
        const rsw::Backend backend = rsw::parse_backend(name);
        const bool on_device = backend == rsw::Backend::Cuda;
        std::size_t pairs = 0;
        if (on_device) {
          physics::AabbStore host;
          host.assign(scene.boxes);
          physics::DeviceAabbStore boxes;
          boxes.upload(host.view());
          host.assign(scene.apart);
          physics::DeviceAabbStore apart;
          apart.upload(host.view());
          DeviceBuffer<physics::Aabb> records;  // the same boxes as records, as from Python
          records.upload(scene.boxes);
          DeviceBuffer<std::uint32_t> world_ids;
          world_ids.upload(scene.worlds);
          DeviceBuffer<std::uint32_t> offsets;
          offsets.upload(scene.offsets);
          synchronize(nullptr);
#if RSW_HAVE_CUDA
          if (per_world <= kAllPairsMostBoxesPerWorld) {
            WorldAllPairs all_pairs;
            Row row = time_frames(
                options,
                [&] {
                  return all_pairs.run(boxes.view(), offsets.data(),
                                       static_cast<std::uint32_t>(worlds),
                                       static_cast<std::uint32_t>(per_world), nullptr);
                },
                pairs);
            add(std::move(row), "cuda-all-pairs", pairs);
          }
#endif
          physics::BroadPhase with_worlds({.backend = backend, .stage_times = false});
          Row worlds_row = time_frames(
              options,
              [&] {
                with_worlds.update(boxes.view(), {.worlds = world_ids.span()});
                return with_worlds.find_pairs_device().size;
              },
              pairs);
          add(std::move(worlds_row), "cuda-worlds", pairs);
          physics::BroadPhase from_records({.backend = backend, .stage_times = false});
          Row records_row = time_frames(
              options,
              [&] {
                from_records.update(records.span(), {.worlds = world_ids.span()});
                return from_records.find_pairs_device().size;
              },
              pairs);
          add(std::move(records_row), "cuda-worlds-records", pairs);
          physics::BroadPhase regions({.backend = backend, .stage_times = false});
          Row regions_row = time_frames(
              options,
              [&] {
                regions.update(apart.view());
                return regions.find_pairs_device().size;
              },
              pairs);
          add(std::move(regions_row), "cuda-regions", pairs);
        } else {
          physics::BroadPhase with_worlds({.backend = backend});
          Row worlds_row = time_frames(
              options,
              [&] {
                with_worlds.update(scene.boxes, {.worlds = scene.worlds});
                return with_worlds.find_pairs().size();
              },
              pairs);
          add(std::move(worlds_row), "cpu-worlds", pairs);
          physics::BroadPhase regions({.backend = backend});
          Row regions_row = time_frames(
              options,
              [&] {
                regions.update(scene.apart);
                return regions.find_pairs().size();
              },
              pairs);
          add(std::move(regions_row), "cpu-regions", pairs);
        }
      }
    }
  }
}

}  // namespace rsw::bench
