// The parts of DeviceBuffer / PinnedBuffer that do not touch the CUDA runtime.
#include "rsw/engine/device_buffer.hpp"

#include <limits>
#include <string>

#include "rsw/engine/error.hpp"

namespace rsw::detail {

std::size_t checked_bytes(std::size_t count, std::size_t element_size) {
  if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size) {
    throw Error(ErrorKind::InvalidArgument, std::to_string(count) + " elements of " +
                                                std::to_string(element_size) +
                                                " bytes overflow the address space");
  }
  return count * element_size;
}

std::size_t grown_capacity(std::size_t capacity, std::size_t wanted) noexcept {
  const std::size_t geometric = capacity + capacity / 2;
  return wanted > geometric ? wanted : geometric;
}

void throw_download_too_large(std::size_t wanted, std::size_t held) {
  throw Error(ErrorKind::InvalidArgument, "DeviceBuffer::download: asked for " +
                                              std::to_string(wanted) +
                                              " elements of a buffer "
                                              "holding " +
                                              std::to_string(held));
}

void throw_copy_target_too_small(std::size_t wanted, std::size_t held) {
  throw Error(ErrorKind::InvalidArgument, "copy: " + std::to_string(wanted) +
                                              " elements do not fit a target of " +
                                              std::to_string(held));
}

}  // namespace rsw::detail
