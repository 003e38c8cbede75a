// RSW_CUDA_CHECK: turns a failing CUDA runtime call into an rsw::Error.
//
// This header needs no CUDA header itself (cudaSuccess is 0), so it may sit among the public
// headers; only code that makes CUDA calls uses it.
//
//   RSW_CUDA_CHECK(cudaMalloc(&pointer, bytes), "allocating " + describe_bytes(bytes));
//
// The second argument says what was being done; it is evaluated only on failure, so it may
// build a string. The error names the call, the file:line and the CUDA error string.
#pragma once

#include <string_view>

#include "rsw/engine/api.hpp"

namespace rsw::detail {

/// Throws the rsw::Error for a failed CUDA call (status != cudaSuccess).
[[noreturn]] RSW_API void throw_cuda_error(int status, const char* call, const char* file, int line,
                                           std::string_view doing);

}  // namespace rsw::detail

#define RSW_CUDA_CHECK(call, doing)                                                        \
  do {                                                                                     \
    const auto rsw_cuda_status_ = (call);                                                  \
    if (static_cast<int>(rsw_cuda_status_) != 0)                                           \
      ::rsw::detail::throw_cuda_error(static_cast<int>(rsw_cuda_status_), #call, __FILE__, \
                                      __LINE__, (doing));                                  \
  } while (false)

/// After a kernel launch: reports launch-configuration errors where the launch was made.
#define RSW_CUDA_CHECK_LAUNCH(doing) RSW_CUDA_CHECK(cudaGetLastError(), (doing))
