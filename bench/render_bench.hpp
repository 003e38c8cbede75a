// The render benchmark: frames of n instanced boxes drawn headless, the instances either
// written by the host and uploaded to the GL buffer each frame ("upload") or written by a CUDA
// kernel straight into the GL buffer ("interop", no copy through the host), and drawn either
// as meshes ("meshes") or by their size on screen ("detail", render::DrawPath::LevelOfDetail).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_report.hpp"

namespace rsw::bench {

struct RenderBenchOptions {
  std::vector<std::size_t> sizes;                         ///< instances per frame
  std::vector<std::string> paths;                         ///< "upload", "interop" (needs CUDA)
  std::vector<std::string> draws = {"meshes", "detail"};  ///< render::DrawPath, by name
  std::vector<float> mesh_pixels = {24};  ///< "detail": RendererOptions::mesh_pixels to try
  int width = 1280;                       ///< image size in pixels
  int height = 720;
  std::size_t frames = 20;  ///< timed frames per row
  std::size_t warmup = 3;   ///< untimed frames before them
};

/// One row per size, path and draw ("upload+meshes", ...; "detail" once per mesh_pixels):
/// frame ms (instances written, drawn, glFinish), with metrics fps, instances_ms (writing
/// them: host loop, or kernel), draw_ms (upload or unmap, draw, finish), mesh_pixels and the
/// last frame's meshes, impostors, splats and culled instances, and the GL renderer in `dist`.
void run_render_bench(const RenderBenchOptions& options, Report& report);

}  // namespace rsw::bench
