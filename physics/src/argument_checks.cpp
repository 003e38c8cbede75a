#include "argument_checks.hpp"

#include <string>

#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {

void check_sizes(std::size_t count, std::initializer_list<std::size_t> sizes, const char* what) {
  if (count >= kNoIndex) {
    throw Error(ErrorKind::InvalidArgument,
                std::to_string(count) +
                    " boxes: the broad phase indexes boxes with 32 bits (at most " +
                    std::to_string(kNoIndex - 1) + ")");
  }
  for (const std::size_t size : sizes) {
    if (size != count) {
      throw Error(ErrorKind::InvalidArgument, std::string(what) + ": " + std::to_string(size) +
                                                  " entries for " + std::to_string(count) +
                                                  " boxes");
    }
  }
}

void check_pairs(std::size_t bodies, std::span<const Pair> pairs) {
  for (const Pair& pair : pairs) {
    if (pair.a >= bodies || pair.b >= bodies) {
      throw Error(ErrorKind::InvalidArgument, "contact pair (" + std::to_string(pair.a) + ", " +
                                                  std::to_string(pair.b) + ") names a body past " +
                                                  std::to_string(bodies));
    }
  }
}

}  // namespace rsw::physics::detail
