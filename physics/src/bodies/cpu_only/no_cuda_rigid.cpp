// A build without CUDA runs rigid bodies on the CPU only.
#include "../rigid_gpu.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {
namespace {

[[noreturn]] void no_gpu() {
  throw Error(ErrorKind::DeviceUnavailable,
              "GPU rigid bodies are not in this build (it was configured without CUDA)");
}

}  // namespace

void launch_rigid_bounds(const BodyArrays&, const ShapeRecord*, const SphereRecord*,
                         DeviceSpan<float>[3], DeviceSpan<float>[3], StreamHandle) {
  no_gpu();
}

void launch_rigid_collide(const BodyArrays&, const ShapeRecord*, const SphereRecord*,
                          std::uint32_t, SphereRecord*, DeviceSpan<const Pair>,
                          const RigidOptions&, long long*, StreamHandle) {
  no_gpu();
}

void launch_rigid_integrate(const BodyArrays&, const ShapeRecord*, const long long*, float,
                            const RigidOptions&, StreamHandle) {
  no_gpu();
}

}  // namespace rsw::physics::detail
