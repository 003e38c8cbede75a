// Box instances and sprites written by a kernel (for the interop tests) and the same ones on
// the host.
#pragma once

#include <cstddef>
#include <vector>

#include "rsw/engine/stream.hpp"
#include "rsw/render/renderer.hpp"

namespace rsw::render::testing {

/// Instances 0 and 1 are a red box at x = -2 and a blue one at x = +2 (size 1.5); the rest
/// are small yellow boxes on a 100 x 100 grid over [-3, 3]^2 in the plane z = 0.
std::vector<BoxInstance> host_instances(std::size_t count);
/// The same instances, written into device memory by a kernel on `stream`.
void write_instances(BoxInstance* out, std::size_t count, StreamHandle stream);
/// Sprites on the same grid at depths 0 .. -6, sphere 0 of radius 1, the rest small.
std::vector<SphereInstance> host_spheres(std::size_t count);
/// The same sprites, written into device memory by a kernel on `stream`.
void write_spheres(SphereInstance* out, std::size_t count, StreamHandle stream);

}  // namespace rsw::render::testing
