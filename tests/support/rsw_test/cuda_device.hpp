// For tests labelled `gpu`: skip, saying why, when this machine cannot run CUDA code.
#pragma once

#include <gtest/gtest.h>

#include "rsw/engine/backend.hpp"

/// Skips the current test unless a usable CUDA device is present.
#define RSW_REQUIRE_CUDA_DEVICE()                                                          \
  do {                                                                                     \
    if (!::rsw::cuda_runtime_info().available()) {                                         \
      GTEST_SKIP() << "no CUDA device: " << ::rsw::cuda_runtime_info().unavailable_reason; \
    }                                                                                      \
  } while (false)
