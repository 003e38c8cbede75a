#include "query_bench.hpp"

#include <chrono>
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
  for (const std::size_t count : options.sizes) {
    const std::vector<physics::Aabb> boxes = with_host_allocation(
        "the " + std::to_string(count) + " boxes", count * sizeof(physics::Aabb), [&] {
          return workloads::make_boxes(count, workloads::BoxScene::Uniform, std::random_device{}(),
                                       options.pairs_per_box);
        });
    for (const std::size_t queries : options.queries) {
      // Small regions: boxes of the same scene, as many as the batch.
      const std::vector<physics::Aabb> regions = with_host_allocation(
          "the " + std::to_string(queries) + " regions", queries * sizeof(physics::Aabb), [&] {
            return workloads::make_boxes(
                queries, workloads::BoxScene::Uniform, std::random_device{}(),
                options.pairs_per_box * static_cast<double>(queries) / static_cast<double>(count));
          });
      for (const std::string& name : options.backends) {
        const rsw::Backend backend = rsw::parse_backend(name);
        for (Row row :
             {frame_row(boxes, backend, options), query_row(boxes, regions, backend, options)}) {
          row.bench = "query";
          row.n = count;
          row.dist = "aabb";
          row.mode = std::to_string(queries) + " queries";
          report.add(std::move(row));
        }
      }
    }
  }
}

}  // namespace rsw::bench
