#include "query_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "rsw/engine/device_buffer.hpp"
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

// Batches of World::query, host clock, the hits left on the device (GPU) or the host (CPU).
Row query_row(const std::vector<physics::Aabb>& boxes, const std::vector<physics::Aabb>& regions,
              rsw::Backend backend, const QueryBenchOptions& options) {
  const bool on_device = backend == rsw::Backend::Cuda;
  physics::World world({.backend = backend});
  std::vector<physics::ProxyId> ids(boxes.size());
  world.create(boxes, {}, ids);
  world.step();
  DeviceBuffer<physics::Aabb> device_regions;
  if (on_device) {
    device_regions.upload(regions);
    synchronize(nullptr);
  }
  StageProfiler profiler({.history_frames = options.frames});
  std::size_t hits = 0;
  for (std::size_t frame = 0; frame < options.warmup + options.frames; ++frame) {
    if (frame == options.warmup) profiler.reset();
    const Clock::time_point start = Clock::now();
    hits = on_device ? world.query(device_regions.span()).size : world.query(regions).size();
    profiler.add_sample("query", ms_since(start), rsw::Backend::Cpu);
    profiler.end_frame();
  }
  Row row = row_from_profile(profiler, "query");
  row.algo = std::string(on_device ? "cuda" : "cpu") + "-world-query";
  row.metrics["hits"] = hits;
  row.metrics["hits_per_query"] =
      regions.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(regions.size());
  return row;
}

// Batches of World::raycast, host clock, the hits left on the device (GPU) or the host (CPU).
// The first batch after the step builds the tree the rays walk: its time is reported apart.
Row raycast_row(const std::vector<physics::Aabb>& boxes, const std::vector<physics::Ray>& rays,
                bool all_hits, rsw::Backend backend, const QueryBenchOptions& options) {
  const bool on_device = backend == rsw::Backend::Cuda;
  physics::World world({.backend = backend});
  std::vector<physics::ProxyId> ids(boxes.size());
  world.create(boxes, {}, ids);
  world.step();
  DeviceBuffer<physics::Ray> device_rays;
  if (on_device) {
    device_rays.upload(rays);
    synchronize(nullptr);
  }
  const physics::RaycastOptions cast{.all_hits = all_hits};
  StageProfiler profiler({.history_frames = options.frames});
  std::size_t hits = 0;
  double first_ms = 0;
  for (std::size_t frame = 0; frame < options.warmup + options.frames; ++frame) {
    if (frame == options.warmup) profiler.reset();
    const Clock::time_point start = Clock::now();
    hits =
        on_device ? world.raycast(device_rays.span(), cast).size : world.raycast(rays, cast).size();
    if (frame == 0) first_ms = ms_since(start);
    profiler.add_sample("raycast", ms_since(start), rsw::Backend::Cpu);
    profiler.end_frame();
  }
  Row row = row_from_profile(profiler, "raycast");
  row.algo = std::string(on_device ? "cuda" : "cpu") + "-world-raycast";
  row.metrics["hits"] = hits;
  row.metrics["hits_per_ray"] =
      rays.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(rays.size());
  row.metrics["first_batch_ms"] = first_ms;  // with the tree's build
  return row;
}

// Rays from uniform points of the scene's bounds in uniform directions (unit length): of at
// most `reach` (a uniform share of it), or from outside the bounds across them (infinite).
std::vector<physics::Ray> make_rays(const std::vector<physics::Aabb>& boxes, std::size_t count,
                                    float reach, bool across) {
  physics::Aabb bounds = boxes.empty() ? physics::Aabb{} : boxes.front();
  for (const physics::Aabb& box : boxes) {
    bounds.min = {std::min(bounds.min.x, box.min.x), std::min(bounds.min.y, box.min.y),
                  std::min(bounds.min.z, box.min.z)};
    bounds.max = {std::max(bounds.max.x, box.max.x), std::max(bounds.max.y, box.max.y),
                  std::max(bounds.max.z, box.max.z)};
  }
  std::mt19937 generator(std::random_device{}());
  std::uniform_real_distribution<float> share(0, 1);
  std::normal_distribution<float> normal;
  std::vector<physics::Ray> rays(count);
  for (physics::Ray& ray : rays) {
    physics::Vec3 d{normal(generator), normal(generator), normal(generator)};
    const float length = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    ray.direction = {d.x / length, d.y / length, d.z / length};
    ray.origin = {bounds.min.x + share(generator) * (bounds.max.x - bounds.min.x),
                  bounds.min.y + share(generator) * (bounds.max.y - bounds.min.y),
                  bounds.min.z + share(generator) * (bounds.max.z - bounds.min.z)};
    if (across) {  // from a point on the face the ray leaves x through, back across
      ray.origin.x = ray.direction.x > 0 ? bounds.min.x - 1 : bounds.max.x + 1;
      ray.max_t = std::numeric_limits<float>::infinity();
    } else {
      ray.max_t = share(generator) * reach;
    }
  }
  return rays;
}

// BroadPhase frames of the proxies' boxes, as radixsweep-bench broadphase times them.
Row frame_row(const std::vector<physics::Aabb>& boxes, rsw::Backend backend,
              const QueryBenchOptions& options) {
  const bool on_device = backend == rsw::Backend::Cuda;
  physics::BroadPhase broad_phase({.backend = backend, .stage_times = false});
  physics::DeviceAabbStore device;
  if (on_device) {
    physics::AabbStore host;
    host.assign(boxes);
    device.upload(host.view());
    synchronize(nullptr);
  }
  StageProfiler profiler({.history_frames = options.frames});
  for (std::size_t frame = 0; frame < options.warmup + options.frames; ++frame) {
    if (frame == options.warmup) profiler.reset();
    const Clock::time_point start = Clock::now();
    if (on_device) {
      broad_phase.update(device.view());
      (void)broad_phase.find_pairs_device();
    } else {
      broad_phase.update(boxes);
      (void)broad_phase.find_pairs();
    }
    profiler.add_sample("frame", ms_since(start), rsw::Backend::Cpu);
    profiler.end_frame();
  }
  Row row = row_from_profile(profiler, "frame");
  row.algo = std::string(on_device ? "cuda" : "cpu") + "-frame";
  row.metrics["pairs"] = broad_phase.stats().pairs;
  return row;
}

}  // namespace

void run_query_bench(const QueryBenchOptions& options, Report& report) {
  const auto wants = [&](std::string_view kind) {
    return std::ranges::find(options.kinds, kind) != options.kinds.end();
  };
  for (const std::size_t count : options.sizes) {
    const std::vector<physics::Aabb> boxes = with_host_allocation(
        "the " + std::to_string(count) + " boxes", count * sizeof(physics::Aabb), [&] {
          return workloads::make_boxes(count, workloads::BoxScene::Uniform, std::random_device{}(),
                                       options.pairs_per_box);
        });
    const float edge = boxes.empty() ? 1.0f : boxes.front().max.x - boxes.front().min.x;
    for (const std::size_t queries : options.queries) {
      const auto add = [&](Row row, const std::string& kind, const std::string& mode) {
        row.bench = "query";
        row.n = count;
        row.dist = kind;
        row.mode = std::to_string(queries) + " queries" + mode;
        report.add(std::move(row));
      };
      std::vector<physics::Ray> short_rays;
      std::vector<physics::Ray> long_rays;
      if (wants("ray") || wants("ray-all")) {
        with_host_allocation("the " + std::to_string(queries) + " rays",
                             2 * queries * sizeof(physics::Ray), [&] {
                               short_rays = make_rays(boxes, queries, 10 * edge, false);
                               long_rays = make_rays(boxes, queries, 0, true);
                               return 0;
                             });
      }
      for (const std::string& name : options.backends) {
        const rsw::Backend backend = rsw::parse_backend(name);
        add(frame_row(boxes, backend, options), "frame", "");
        if (wants("aabb")) {
          // Small regions: boxes of the same scene, as many as the batch.
          const std::vector<physics::Aabb> regions = with_host_allocation(
              "the " + std::to_string(queries) + " regions", queries * sizeof(physics::Aabb), [&] {
                return workloads::make_boxes(queries, workloads::BoxScene::Uniform,
                                             std::random_device{}(),
                                             options.pairs_per_box * static_cast<double>(queries) /
                                                 static_cast<double>(count));
              });
          add(query_row(boxes, regions, backend, options), "aabb", "");
        }
        for (const bool all : {false, true}) {
          if (!wants(all ? "ray-all" : "ray")) continue;
          const std::string kind = all ? "ray-all" : "ray";
          add(raycast_row(boxes, short_rays, all, backend, options), kind,
              ", up to 10 box sizes long");
          add(raycast_row(boxes, long_rays, all, backend, options), kind, ", across the scene");
        }
      }
    }
  }
}

}  // namespace rsw::bench
