// A build without CUDA steps the n-body scene on the CPU only.
#include "../nbody_gpu.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::scenes::detail {
namespace {

[[noreturn]] void no_gpu() {
  throw Error(ErrorKind::DeviceUnavailable,
              "the scenes' GPU steps are not in this build (it was configured without CUDA)");
}

}  // namespace

void kick_drift_on_gpu(const BodyField&, float, float, StreamHandle) {
  no_gpu();
}
void write_sprites_on_gpu(const BodyField&, float, render::SphereInstance*, StreamHandle) {
  no_gpu();
}

}  // namespace rsw::scenes::detail
