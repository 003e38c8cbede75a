// A build without CUDA steps a world on the CPU only.
#include "../world_backend.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {

std::unique_ptr<WorldBackend> make_cuda_world(const ProxyTable&) {
  throw Error(ErrorKind::DeviceUnavailable,
              "the GPU world is not in this build (it was configured without CUDA)");
}

}  // namespace rsw::physics::detail
