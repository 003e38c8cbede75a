// A build without CUDA finds a world's events on the CPU only.
#include "../pair_events.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {

std::unique_ptr<DevicePairEvents> make_device_pair_events() {
  throw Error(ErrorKind::DeviceUnavailable,
              "GPU pair events are not in this build (it was configured without CUDA)");
}

}  // namespace rsw::physics::detail
