// A build without CUDA has no GPU sorts; Sorter resolves Auto to Cpu before reaching this.
#include "gpu_sorter.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::sort::detail {

std::unique_ptr<GpuSorter> make_four_way_sorter() {
  throw Error(ErrorKind::DeviceUnavailable,
              "the four-way GPU sort is not in this build (it was configured without CUDA)");
}

std::unique_ptr<GpuSorter> make_onesweep_sorter() {
  throw Error(ErrorKind::DeviceUnavailable,
              "the Onesweep GPU sort is not in this build (it was configured without CUDA)");
}

}  // namespace rsw::sort::detail
