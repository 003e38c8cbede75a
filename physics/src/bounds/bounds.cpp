#include "rsw/physics/bounds.hpp"

#include <cmath>
#include <string>

#include "bounds_math.hpp"
#include "argument_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"

namespace rsw::physics {
namespace {

void check_point_ranges(std::span<const std::uint32_t> first, std::size_t points) {
  if (first.empty()) {
    throw Error(ErrorKind::InvalidArgument,
                "point sets: `first` needs one entry more than there are objects (got none)");
  }
  if (first.back() != points) {
    throw Error(ErrorKind::InvalidArgument, "point sets: `first` ends at " +
                                                std::to_string(first.back()) + " for " +
                                                std::to_string(points) + " points");
  }
  for (std::size_t k = 0; k + 1 < first.size(); ++k) {
    if (first[k] > first[k + 1]) {
      throw Error(ErrorKind::InvalidArgument,
                  "point sets: object " + std::to_string(k) + " runs backwards (first " +
                      std::to_string(first[k]) + " > next " + std::to_string(first[k + 1]) + ")");
    }
  }
}

void check_point_count(std::size_t points, std::size_t first_entries) {
  detail::check_sizes(points, {}, "points");
  if (first_entries == 0) {
    throw Error(ErrorKind::InvalidArgument,
                "point sets: `first` needs one entry more than there are objects (got none)");
  }
  detail::check_sizes(first_entries - 1, {}, "objects");
}

}  // namespace

void AabbStore::resize(std::size_t count) {
  for (std::vector<float>* array : {&min_x, &min_y, &min_z, &max_x, &max_y, &max_z})
    resize_host(*array, count, "the boxes of an AabbStore");
}

void AabbStore::assign(std::span<const Aabb> boxes) {
  resize(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    min_x[i] = boxes[i].min.x;
    min_y[i] = boxes[i].min.y;
    min_z[i] = boxes[i].min.z;
    max_x[i] = boxes[i].max.x;
    max_y[i] = boxes[i].max.y;
    max_z[i] = boxes[i].max.z;
  }
}

void DeviceAabbStore::resize(std::size_t count) {
  for (DeviceBuffer<float>& array : arrays_)
    array.resize_discarding(count);
}

void DeviceAabbStore::upload(const AabbArrays& boxes, rsw::StreamHandle stream) {
  detail::check_sizes(boxes.min_x.size(),
                      {boxes.min_y.size(), boxes.min_z.size(), boxes.max_x.size(),
                       boxes.max_y.size(), boxes.max_z.size()},
                      "AabbArrays");
  const std::span<const float> host[6] = {boxes.min_x, boxes.min_y, boxes.min_z,
                                          boxes.max_x, boxes.max_y, boxes.max_z};
  for (int k = 0; k < 6; ++k)
    arrays_[k].upload(host[k], stream);
}

void compute_bounds(const SphereArrays& spheres, AabbStore& out) {
  const std::size_t count = spheres.x.size();
  detail::check_sizes(count, {spheres.y.size(), spheres.z.size(), spheres.radius.size()},
                      "SphereArrays");
  out.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const float r = spheres.radius[i];
    out.min_x[i] = spheres.x[i] - r;
    out.min_y[i] = spheres.y[i] - r;
    out.min_z[i] = spheres.z[i] - r;
    out.max_x[i] = spheres.x[i] + r;
    out.max_y[i] = spheres.y[i] + r;
    out.max_z[i] = spheres.z[i] + r;
  }
}

void compute_bounds(const DeviceSphereArrays& spheres, DeviceAabbStore& out,
                    rsw::StreamHandle stream) {
  const std::size_t count = spheres.x.size;
  detail::check_sizes(count, {spheres.y.size, spheres.z.size, spheres.radius.size},
                      "DeviceSphereArrays");
  out.resize(count);
  float* const min[3] = {out.min(0).data, out.min(1).data, out.min(2).data};
  float* const max[3] = {out.max(0).data, out.max(1).data, out.max(2).data};
  detail::launch_sphere_bounds(spheres.x.data, spheres.y.data, spheres.z.data, spheres.radius.data,
                               count, min, max, stream);
}

void compute_bounds(const PointSetArrays& points, AabbStore& out) {
  const std::size_t count = points.x.size();
  detail::check_sizes(count, {points.y.size(), points.z.size()}, "PointSetArrays");
  check_point_count(count, points.first.size());
  check_point_ranges(points.first, count);
  const std::size_t objects = points.first.size() - 1;
  out.resize(objects);
  const std::span<const float> coordinates[3] = {points.x, points.y, points.z};
  std::vector<float>* const mins[3] = {&out.min_x, &out.min_y, &out.min_z};
  std::vector<float>* const maxs[3] = {&out.max_x, &out.max_y, &out.max_z};
  for (int axis = 0; axis < 3; ++axis) {
    for (std::size_t k = 0; k < objects; ++k) {
      float low = INFINITY;
      float high = -INFINITY;
      for (std::uint32_t point = points.first[k]; point < points.first[k + 1]; ++point) {
        low = detail::lower(low, coordinates[axis][point]);
        high = detail::upper(high, coordinates[axis][point]);
      }
      (*mins[axis])[k] = detail::without_negative_zero(low);
      (*maxs[axis])[k] = detail::without_negative_zero(high);
    }
  }
}

void compute_bounds(const DevicePointSetArrays& points, DeviceAabbStore& out,
                    rsw::StreamHandle stream) {
  const std::size_t count = points.x.size;
  detail::check_sizes(count, {points.y.size, points.z.size}, "DevicePointSetArrays");
  check_point_count(count, points.first.size);
  std::uint32_t last = 0;
  rsw::detail::copy_device_to_host(&last, points.first.data + (points.first.size - 1), sizeof(last),
                                   stream);
  synchronize(stream);
  if (last != count) {
    throw Error(ErrorKind::InvalidArgument, "point sets: `first` ends at " + std::to_string(last) +
                                                " for " + std::to_string(count) + " points");
  }
  const std::size_t objects = points.first.size - 1;
  out.resize(objects);
  float* const min[3] = {out.min(0).data, out.min(1).data, out.min(2).data};
  float* const max[3] = {out.max(0).data, out.max(1).data, out.max(2).data};
  detail::launch_point_set_bounds(points.x.data, points.y.data, points.z.data, points.first.data,
                                  objects, count, min, max, stream);
}

}  // namespace rsw::physics
