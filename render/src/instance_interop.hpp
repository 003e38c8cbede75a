// CUDA-GL interop for the renderer's instance buffer: the GL buffer registered once with CUDA
// (again when it is replaced by a larger one), mapped for a kernel to write, and handed back
// to GL before drawing. Built without CUDA, constructing one throws rsw::Error
// (DeviceUnavailable).
#pragma once

#include <cstddef>

#include "rsw/engine/stream.hpp"

struct cudaGraphicsResource;

namespace rsw::render::detail {

class InstanceInterop {
 public:
  /// Registers GL buffer `buffer` (write-discard: each map overwrites it).
  explicit InstanceInterop(unsigned int buffer);
  ~InstanceInterop();
  InstanceInterop(const InstanceInterop&) = delete;
  InstanceInterop& operator=(const InstanceInterop&) = delete;

  /// Maps the buffer for CUDA work on `stream`; the device address of its first byte.
  void* map(StreamHandle stream);
  /// Hands the buffer back to GL once the work queued on the mapping stream is done.
  void unmap();
  bool mapped() const noexcept { return mapped_; }

 private:
  cudaGraphicsResource* resource_ = nullptr;
  StreamHandle stream_ = nullptr;
  bool mapped_ = false;
};

}  // namespace rsw::render::detail
