// The particles scene's GPU steps (cuda/particles_kernels.cu); a build without CUDA throws
// rsw::Error (DeviceUnavailable) from each (cpu_only/no_scene_kernels.cpp).
#pragma once

#include "particles_math.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::scenes::detail {

/// settle_on_landscape() for every particle.
void settle_on_gpu(const ParticleField& field, const Landscape& land, StreamHandle stream);
/// particle_sprite() of every particle into `out` (the renderer's mapped sprite buffer).
void write_particle_sprites_on_gpu(const ParticleField& field, render::SphereInstance* out,
                                   StreamHandle stream);

}  // namespace rsw::scenes::detail
