// A build without CUDA steps the scenes on the CPU only: every GPU step says so.
#include "../boxes_gpu.hpp"
#include "../chairs_math.hpp"
#include "../nbody_gpu.hpp"
#include "../particles_gpu.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::scenes::detail {
namespace {

[[noreturn]] void no_gpu() {
  throw Error(ErrorKind::DeviceUnavailable,
              "the scenes' GPU steps are not in this build (it was configured without CUDA)");
}

}  // namespace

void move_boxes_on_gpu(const BoxField&, float, StreamHandle) {
  no_gpu();
}
void count_touches_on_gpu(const BoxField&, const physics::Pair*, std::size_t, StreamHandle) {
  no_gpu();
}
void write_instances_on_gpu(const BoxField&, render::BoxInstance*, StreamHandle) {
  no_gpu();
}
void write_chair_instances_on_gpu(const ChairField&, render::BoxInstance*, StreamHandle) {
  no_gpu();
}
void pack_chair_boxes_on_gpu(const physics::DeviceAabbArrays&, physics::Aabb*, std::size_t,
                             StreamHandle) {
  no_gpu();
}
void flash_chairs_on_gpu(float*, std::uint32_t, float, DeviceSpan<const physics::ProxyPair>,
                         StreamHandle) {
  no_gpu();
}
void kick_drift_on_gpu(const Motion&, float, float, StreamHandle) {
  no_gpu();
}
void paint_instances_on_gpu(void*, std::size_t, std::size_t, std::uint32_t, const Paint*,
                            std::size_t, StreamHandle) {
  no_gpu();
}
void write_sprites_on_gpu(const BodyField&, float, render::SphereInstance*, StreamHandle) {
  no_gpu();
}
void settle_on_gpu(const ParticleField&, const Landscape&, StreamHandle) {
  no_gpu();
}
void write_particle_sprites_on_gpu(const ParticleField&, render::SphereInstance*, StreamHandle) {
  no_gpu();
}

}  // namespace rsw::scenes::detail
