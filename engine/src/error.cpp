#include "rsw/engine/error.hpp"

namespace rsw {

std::string_view to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::InvalidArgument: return "invalid argument";
    case ErrorKind::OutOfMemory: return "out of memory";
    case ErrorKind::DeviceUnavailable: return "device unavailable";
    case ErrorKind::Cuda: return "CUDA error";
    case ErrorKind::Io: return "I/O error";
  }
  return "unknown error";
}

Error::Error(ErrorKind kind, const std::string& message, int cuda_status)
    : std::runtime_error(message), kind_(kind), cuda_status_(cuda_status) {}

}  // namespace rsw
