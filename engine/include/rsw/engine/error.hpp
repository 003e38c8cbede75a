// rsw::Error: the one exception type RadixSweep's libraries throw.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "rsw/engine/api.hpp"

namespace rsw {

/// What went wrong, so callers can react without parsing the message.
enum class ErrorKind {
  InvalidArgument,    ///< bad input: NaN or inverted boxes, unknown names, sizes out of range
  OutOfMemory,        ///< a host or device allocation failed
  DeviceUnavailable,  ///< CUDA was asked for but there is no usable driver or device
  Cuda,               ///< any other failing CUDA runtime call
  Io,                 ///< a file could not be read or written
};

/// Short name of an error kind, e.g. "out of memory".
RSW_API std::string_view to_string(ErrorKind kind) noexcept;

/// Thrown by library code instead of exiting: the message says what was being done and why
/// it failed; CUDA failures also carry the runtime's status code.
class RSW_API Error : public std::runtime_error {
 public:
  /// An error of `kind` whose what() is `message`; `cuda_status` is the cudaError_t of a
  /// failed CUDA call, 0 for failures that are not CUDA's.
  Error(ErrorKind kind, const std::string& message, int cuda_status = 0);

  /// The category of failure.
  ErrorKind kind() const noexcept { return kind_; }
  /// The cudaError_t value for CUDA failures, 0 otherwise.
  int cuda_status() const noexcept { return cuda_status_; }

 private:
  ErrorKind kind_;
  int cuda_status_;
};

}  // namespace rsw
