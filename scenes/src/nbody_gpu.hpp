// The n-body scene's GPU steps (cuda/nbody_kernels.cu); a build without CUDA throws
// rsw::Error (DeviceUnavailable) from each (cpu_only/no_scene_kernels.cpp).
#pragma once

#include "nbody_math.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::scenes::detail {

/// body_sprite() of every body into `out` (the renderer's mapped sprite buffer).
void write_sprites_on_gpu(const BodyField& field, float display_radius, render::SphereInstance* out,
                          StreamHandle stream);

}  // namespace rsw::scenes::detail
