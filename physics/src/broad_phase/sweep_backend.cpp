#include "sweep_backend.hpp"

#include <string>

namespace rsw::physics::detail {

std::unique_ptr<SweepBackend> make_sweep(SweepKind kind) {
  switch (kind) {
    case SweepKind::Cuda: return make_cuda_sweep();
    case SweepKind::Cpu: return make_cpu_sweep(0);
    case SweepKind::BruteForce: return make_brute_force_sweep();
  }
  throw Error(ErrorKind::InvalidArgument, "unknown broad-phase backend");
}

Error too_many_listings(std::uint64_t listings) {
  return Error(ErrorKind::OutOfMemory,
               std::to_string(listings) +
                   " (box, cell) listings: more than 32-bit indices reach (boxes much larger than "
                   "the mean cover too many cells)");
}

}  // namespace rsw::physics::detail
