// For tests labelled `gpu`: skip, saying why, when this machine cannot run CUDA code.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/device_buffer.hpp"

/// Skips the current test unless a usable CUDA device is present.
#define RSW_REQUIRE_CUDA_DEVICE()                                                          \
  do {                                                                                     \
    if (!::rsw::cuda_runtime_info().available()) {                                         \
      GTEST_SKIP() << "no CUDA device: " << ::rsw::cuda_runtime_info().unavailable_reason; \
    }                                                                                      \
  } while (false)

namespace rsw::test {

/// A copy of device memory in a host vector (waits for the default stream).
template <class T>
std::vector<std::remove_const_t<T>> to_host(DeviceSpan<T> device) {
  std::vector<std::remove_const_t<T>> host(device.size);
  if (!host.empty()) {
    rsw::detail::copy_device_to_host(host.data(), device.data, device.size_bytes(), nullptr);
    synchronize(nullptr);
  }
  return host;
}

}  // namespace rsw::test
