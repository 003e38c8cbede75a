// Bounding boxes of the things a scene moves, as the broad phase takes them: six float arrays
// (structure-of-arrays), on the host or the device. Spheres give their box directly; meshes
// and other point sets by a min/max reduction over each object's points. The GPU functions
// and their CPU twins give bit-identical boxes.
//
//   DeviceAabbStore boxes;
//   compute_bounds(DeviceSphereArrays{x, y, z, radius}, boxes, stream);
//   broad_phase.update(boxes.view());
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::physics {

/// Spheres by centre and radius, in host memory.
struct SphereArrays {
  /// Sphere i's centre is (x[i], y[i], z[i]).
  ///@{
  std::span<const float> x;
  std::span<const float> y;
  std::span<const float> z;
  ///@}
  std::span<const float> radius;  ///< negative or NaN gives an invalid box
};

/// Spheres by centre and radius, in device memory.
struct DeviceSphereArrays {
  /// Sphere i's centre is (x[i], y[i], z[i]).
  ///@{
  rsw::DeviceSpan<const float> x;
  rsw::DeviceSpan<const float> y;
  rsw::DeviceSpan<const float> z;
  ///@}
  rsw::DeviceSpan<const float> radius;  ///< negative or NaN gives an invalid box
};

/// The points of many objects (say mesh vertices in world space), in host memory: object k
/// owns points [first[k], first[k + 1]); `first` has one entry more than there are objects,
/// and its last entry is the number of points.
struct PointSetArrays {
  /// Point j is (x[j], y[j], z[j]).
  ///@{
  std::span<const float> x;
  std::span<const float> y;
  std::span<const float> z;
  ///@}
  std::span<const std::uint32_t> first;  ///< object k's first point index, then the count
};

/// PointSetArrays in device memory.
struct DevicePointSetArrays {
  /// Point j is (x[j], y[j], z[j]).
  ///@{
  rsw::DeviceSpan<const float> x;
  rsw::DeviceSpan<const float> y;
  rsw::DeviceSpan<const float> z;
  ///@}
  rsw::DeviceSpan<const std::uint32_t> first;  ///< object k's first point index, then the count
};

/// Boxes as six owned float arrays in host memory.
struct RSW_API AabbStore {
  /// Box i's minimum and maximum on each axis are element i of these arrays.
  ///@{
  std::vector<float> min_x, min_y, min_z, max_x, max_y, max_z;
  ///@}

  /// Boxes held: the length of min_x, which every array shares after resize() or assign().
  std::size_t size() const noexcept { return min_x.size(); }
  /// Sets every array to `count` entries.
  void resize(std::size_t count);
  /// Replaces the contents with `boxes`, one Aabb record per box.
  void assign(std::span<const Aabb> boxes);
  /// The arrays as BroadPhase::update() takes them.
  AabbArrays view() const noexcept { return {min_x, min_y, min_z, max_x, max_y, max_z}; }
};

/// Boxes as six owned float arrays in device memory.
class RSW_API DeviceAabbStore {
 public:
  /// Boxes held.
  std::size_t size() const noexcept { return arrays_[0].size(); }
  /// Sets every array to `count` entries (contents not kept).
  void resize(std::size_t count);
  /// Replaces the contents with a copy of host arrays (equal lengths), queued on `stream`.
  void upload(const AabbArrays& boxes, rsw::StreamHandle stream = nullptr);
  /// The minima (axis 0 = x, 1 = y, 2 = z) and maxima, for kernels that write boxes.
  ///@{
  rsw::DeviceSpan<float> min(int axis) noexcept { return arrays_[axis].span(); }
  rsw::DeviceSpan<float> max(int axis) noexcept { return arrays_[3 + axis].span(); }
  ///@}
  /// The arrays as BroadPhase::update() takes them.
  DeviceAabbArrays view() const noexcept {
    return {arrays_[0].span(), arrays_[1].span(), arrays_[2].span(),
            arrays_[3].span(), arrays_[4].span(), arrays_[5].span()};
  }

 private:
  std::array<rsw::DeviceBuffer<float>, 6> arrays_;
};

/// out[i] = the box of sphere i: centre -+ radius. A negative or NaN radius gives a box that
/// BroadPhase::update() rejects (or excludes) as invalid.
RSW_API void compute_bounds(const SphereArrays& spheres, AabbStore& out);
/// The same on the GPU, queued on `stream`.
RSW_API void compute_bounds(const DeviceSphereArrays& spheres, DeviceAabbStore& out,
                            rsw::StreamHandle stream = nullptr);

/// out[k] = the smallest box holding object k's points. An object without points gets the
/// empty box (min +inf, max -inf), which BroadPhase::update() rejects (or excludes) as invalid.
/// Throws rsw::Error(InvalidArgument) when `first` is not ascending or does not end at the
/// number of points.
RSW_API void compute_bounds(const PointSetArrays& points, AabbStore& out);
/// The same on the GPU, one warp per object, queued on `stream`. Checks the sizes and the last
/// entry of `first` (a 4-byte read); an object whose range runs backwards gets the empty box.
RSW_API void compute_bounds(const DevicePointSetArrays& points, DeviceAabbStore& out,
                            rsw::StreamHandle stream = nullptr);

}  // namespace rsw::physics
