// A build without CUDA has no GPU broad phase; Backend::Auto resolves to Cpu before this.
#include "rsw/engine/error.hpp"
#include "../sweep_backend.hpp"

namespace rsw::physics::detail {

std::unique_ptr<SweepBackend> make_cuda_sweep() {
  throw Error(ErrorKind::DeviceUnavailable,
              "the GPU broad phase is not in this build (it was configured without CUDA)");
}

}  // namespace rsw::physics::detail
