// glad first: its include guards keep the system's GL/gl.h, which cuda_gl_interop.h includes,
// from declaring the GL API a second time.
#include <glad/gl.h>
// clang-format off
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
// clang-format on

#include "../instance_interop.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw::render::detail {

InstanceInterop::InstanceInterop(unsigned int buffer) {
  RSW_CUDA_CHECK(
      cudaGraphicsGLRegisterBuffer(&resource_, buffer, cudaGraphicsRegisterFlagsWriteDiscard),
      "registering the GL instance buffer with CUDA (is the GL context on the CUDA device?)");
}

InstanceInterop::~InstanceInterop() {
  if (mapped_) cudaGraphicsUnmapResources(1, &resource_, stream_);
  cudaGraphicsUnregisterResource(resource_);
}

void* InstanceInterop::map(StreamHandle stream) {
  if (mapped_) unmap();
  RSW_CUDA_CHECK(cudaGraphicsMapResources(1, &resource_, stream),
                 "mapping the GL instance buffer for CUDA");
  mapped_ = true;
  stream_ = stream;
  void* pointer = nullptr;
  std::size_t bytes = 0;
  RSW_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&pointer, &bytes, resource_),
                 "getting the device address of the GL instance buffer");
  return pointer;
}

void InstanceInterop::unmap() {
  if (!mapped_) return;
  mapped_ = false;
  RSW_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource_, stream_),
                 "handing the GL instance buffer back to GL");
}

}  // namespace rsw::render::detail
