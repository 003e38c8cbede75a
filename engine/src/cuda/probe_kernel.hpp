#pragma once

#include <cuda_runtime_api.h>

namespace rsw::detail {

/// cudaSuccess when this binary holds code (SASS or PTX) that `ordinal` can run.
cudaError_t probe_kernel_image(int ordinal);

}  // namespace rsw::detail
