// A build without CUDA runs the dynamics on the CPU only.
#include "../dynamics_gpu.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {
namespace {

[[noreturn]] void no_gpu() {
  throw Error(ErrorKind::DeviceUnavailable,
              "GPU dynamics are not in this build (it was configured without CUDA)");
}

}  // namespace

void launch_gravity(const DeviceSphereBodies&, DeviceAccelerations, const GravityOptions&,
                    StreamHandle) {
  no_gpu();
}

void launch_contacts(const DeviceSphereBodies&, DeviceSpan<const Pair>, DeviceAccelerations,
                     const ContactOptions&, long long*, StreamHandle) {
  no_gpu();
}

}  // namespace rsw::physics::detail
