// A build without CUDA: the renderer's instances come from host memory (draw_boxes) only.
#include "../instance_interop.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::render::detail {

InstanceInterop::InstanceInterop(unsigned int /*buffer*/) {
  throw Error(ErrorKind::DeviceUnavailable,
              "this build has no CUDA: the renderer takes instances from host memory "
              "(draw_boxes), not from a kernel");
}

InstanceInterop::~InstanceInterop() = default;

void* InstanceInterop::map(StreamHandle /*stream*/) {
  return nullptr;
}

void InstanceInterop::unmap() {}

}  // namespace rsw::render::detail
