// A build without CUDA computes bounds on the CPU only.
#include "../bounds_math.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {
namespace {

[[noreturn]] void no_gpu() {
  throw Error(ErrorKind::DeviceUnavailable,
              "GPU bounds are not in this build (it was configured without CUDA)");
}

}  // namespace

void launch_sphere_bounds(const float*, const float*, const float*, const float*, std::size_t,
                          float* const (&)[3], float* const (&)[3], StreamHandle) {
  no_gpu();
}

void launch_point_set_bounds(const float*, const float*, const float*, const std::uint32_t*,
                             std::size_t, std::size_t, float* const (&)[3], float* const (&)[3],
                             StreamHandle) {
  no_gpu();
}

}  // namespace rsw::physics::detail
