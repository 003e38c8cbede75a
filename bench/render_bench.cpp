#include "render_bench.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "render_instances.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/render/headless_context.hpp"
#include "rsw/render/renderer.hpp"

namespace rsw::bench {
namespace {

Row render_row(render::HeadlessContext& context, std::size_t count, const std::string& path,
               const std::string& draw, float mesh_pixels, const RenderBenchOptions& options) {
  const bool interop = path == "interop";
  if (interop && !cuda_runtime_info().available()) {
    throw Error(ErrorKind::DeviceUnavailable, "render --path interop needs a CUDA device");
  }
  render::Renderer renderer(
      {.width = options.width,
       .height = options.height,
       .draw_path = draw == "meshes" ? render::DrawPath::Meshes : render::DrawPath::LevelOfDetail,
       .mesh_pixels = mesh_pixels});
  const auto side = static_cast<float>(std::sqrt(static_cast<double>(count)));
  const render::OrbitCamera camera{.distance = 1.2f * side + 5,
                                   .yaw_degrees = 30,
                                   .pitch_degrees = 35,
                                   .far_plane = 10 * side + 100};
  std::vector<render::BoxInstance> host(interop ? 0 : count);
  std::optional<Stream> stream;  // interop only: a CPU machine has no streams
  if (interop) stream.emplace();
  StageProfiler profiler({.history_frames = options.frames});
  for (std::size_t frame = 0; frame < options.warmup + options.frames; ++frame) {
    if (frame == options.warmup) profiler.reset();
    const int step = static_cast<int>(frame);
    auto whole = profiler.time("frame");
#if RSW_HAVE_CUDA
    if (interop) {
      DeviceSpan<render::BoxInstance> mapped;
      {
        auto timer = profiler.time("instances");
        mapped = renderer.map_instances(count, stream->handle());
        write_instances_on_device(mapped.data, count, step, stream->handle());
        stream->synchronize();
      }
      auto timer = profiler.time("draw");
      renderer.draw_mapped(camera);
      renderer.finish();
    } else
#endif
    {
      {
        auto timer = profiler.time("instances");
        for (std::size_t i = 0; i < count; ++i)
          host[i] = bench_instance(i, count, step);
      }
      auto timer = profiler.time("draw");
      renderer.draw_boxes(host, camera);
      renderer.finish();
    }
    whole.stop();
    profiler.end_frame();
  }
  const render::DrawCounts drawn = renderer.frame_counts();
  Row row = row_from_profile(profiler, "frame");
  row.bench = "render";
  row.algo = path + "+" + draw;
  row.n = count;
  row.dist = context.platform() == render::EglPlatform::Device ? "egl-device" : "egl-surfaceless";
  row.mode = std::to_string(options.width) + "x" + std::to_string(options.height);
  row.metrics["fps"] = 1000.0 / row.ms_median;
  row.metrics["instances_ms"] = profiler.stats("instances")->median_ms;
  row.metrics["draw_ms"] = profiler.stats("draw")->median_ms;
  if (draw != "meshes") row.metrics["mesh_pixels"] = mesh_pixels;
  row.metrics["meshes"] = drawn.meshes;
  row.metrics["impostors"] = drawn.impostors;
  row.metrics["splats"] = drawn.splats;
  row.metrics["culled"] = drawn.culled;
  return row;
}

}  // namespace

void run_render_bench(const RenderBenchOptions& options, Report& report) {
  render::HeadlessContext context;
  std::printf("gl: %s\n", context.description().c_str());
  for (const std::size_t count : options.sizes) {
    for (const std::string& path : options.paths) {
      for (const std::string& draw : options.draws) {
        if (draw == "meshes") {
          report.add(render_row(context, count, path, draw, 0, options));
          continue;
        }
        for (const float pixels : options.mesh_pixels)
          report.add(render_row(context, count, path, draw, pixels, options));
      }
    }
  }
}

}  // namespace rsw::bench
