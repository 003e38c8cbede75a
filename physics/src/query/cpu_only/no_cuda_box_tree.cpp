// A build without CUDA has no device tree: only the CPU answers queries there, so these are
// never reached; they say why if they are.
#include "../device_box_tree.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::physics::detail {
namespace {

[[noreturn]] void no_device() {
  throw Error(ErrorKind::DeviceUnavailable,
              "the GPU box tree is not in this build (it was configured without CUDA)");
}

}  // namespace

void DeviceBoxTree::build(const Aabb*, const SlotState*, const std::uint32_t*, std::uint32_t,
                          StreamHandle) {
  no_device();
}
void DeviceBoxTree::build(const DeviceAabbArrays&, const std::uint32_t*, std::uint32_t,
                          StreamHandle) {
  no_device();
}
std::optional<std::uint32_t> DeviceBoxTree::first_invalid(DeviceSpan<const Aabb>, StreamHandle) {
  no_device();
}
std::optional<std::uint32_t> DeviceBoxTree::first_invalid(DeviceSpan<const Ray>, StreamHandle) {
  no_device();
}
DeviceSpan<const QueryHit> DeviceBoxTree::overlap(DeviceSpan<const Aabb>, const LeafFilter&,
                                                  const std::uint32_t*, StreamHandle) {
  no_device();
}
DeviceSpan<const RayHit> DeviceBoxTree::cast(DeviceSpan<const Ray>, const LeafFilter&, bool,
                                             const std::uint32_t*, StreamHandle) {
  no_device();
}
DeviceSpan<const BoxQueryHit> DeviceBoxTree::box_hits(DeviceSpan<const QueryHit>, StreamHandle) {
  no_device();
}
DeviceSpan<const BoxRayHit> DeviceBoxTree::box_hits(DeviceSpan<const RayHit>, StreamHandle) {
  no_device();
}

}  // namespace rsw::physics::detail
