// The render benchmark's instances: n boxes on a square grid, bobbing with the frame number;
// the host and the kernel compute them with the same function.
#pragma once

#include <cmath>
#include <cstddef>

#include "rsw/engine/host_device.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/render/renderer.hpp"

namespace rsw::bench {

/// Instance i of `count` in frame `frame`.
RSW_HOST_DEVICE inline render::BoxInstance bench_instance(std::size_t i, std::size_t count,
                                                          int frame) {
  const auto side = static_cast<std::size_t>(sqrtf(static_cast<float>(count))) + 1;
  const float x = static_cast<float>(i % side) - 0.5f * static_cast<float>(side);
  const float z = static_cast<float>(i / side) - 0.5f * static_cast<float>(side);
  render::BoxInstance box;
  box.centre[0] = x;
  box.centre[1] = 0.5f * sinf(0.3f * x + 0.2f * z + 0.1f * static_cast<float>(frame));
  box.centre[2] = z;
  box.size[0] = box.size[1] = box.size[2] = 0.8f;
  box.colour[0] = i % 3 == 0 ? 1.0f : 0.4f;
  box.colour[1] = i % 3 == 1 ? 1.0f : 0.4f;
  box.colour[2] = i % 3 == 2 ? 1.0f : 0.4f;
  return box;
}

/// Instances [0, count) of frame `frame`, written by a kernel on `stream` (CUDA builds).
void write_instances_on_device(render::BoxInstance* out, std::size_t count, int frame,
                               StreamHandle stream);

}  // namespace rsw::bench
