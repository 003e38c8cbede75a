// The boxes scene's GPU steps (cuda/boxes_kernels.cu), queued on a stream; a build without
// CUDA throws rsw::Error (DeviceUnavailable) from each (cpu_only/no_scene_kernels.cpp).
#pragma once

#include <cstddef>

#include "boxes_math.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/aabb.hpp"

namespace rsw::scenes::detail {

/// move_box() for every box.
void move_boxes_on_gpu(const BoxField& field, float dt, StreamHandle stream);
/// field.touches = how many of `pairs` name each box (integer atomics: the same every run).
void count_touches_on_gpu(const BoxField& field, const physics::Pair* pairs, std::size_t count,
                          StreamHandle stream);
/// box_instance() of every box into `out` (the renderer's mapped instance buffer).
void write_instances_on_gpu(const BoxField& field, render::BoxInstance* out, StreamHandle stream);

}  // namespace rsw::scenes::detail
