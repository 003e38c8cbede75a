// The region and ray queries of BroadPhase and World from Python: the same steps for both, on
// host arrays (NumPy results) or device arrays (DeviceArray results of 32-bit words).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "arrays.hpp"
#include "device_arrays.hpp"

namespace rsw::python {

/// The query arguments' views: regions are boxes, rays rays.
inline ArrayView<physics::Aabb> host_arguments(py::handle object, const char* name,
                                               const physics::Aabb*) {
  return boxes_from(object, name);
}
inline ArrayView<physics::Ray> host_arguments(py::handle object, const char* name,
                                              const physics::Ray*) {
  return rays_from(object, name);
}
inline DeviceSpan<const physics::Aabb> device_arguments(const DeviceInput& input, const char* name,
                                                        const physics::Aabb*) {
  return device_boxes(input, name);
}
inline DeviceSpan<const physics::Ray> device_arguments(const DeviceInput& input, const char* name,
                                                       const physics::Ray*) {
  return device_rays(input, name);
}

/// Asks a query of `arguments` (Element: regions or rays, named `name`) of an owner working on
/// `stream`: ask(host span) or ask(device span) with the GIL released. Host hits come back as a
/// NumPy array of their dtype; device hits as a DeviceArray of rows of 32-bit words (a Hit
/// each), owned by `owner` and valid until `validity` advances (which this call does first, as
/// its results replace the last ones).
template <class Element, class Ask>
py::object answer_query(const py::object& owner, StreamHandle stream, Validity& validity,
                        const char* valid_until, const py::object& arguments, const char* name,
                        Ask&& ask) {
  validity.advance();
  if (const auto input = DeviceInput::of(arguments, name, stream)) {
    const auto view = device_arguments(*input, name, static_cast<const Element*>(nullptr));
    decltype(ask(view)) hits;
    {
      py::gil_scoped_release unlocked;
      hits = ask(view);
    }
    using Hit = std::remove_cv_t<std::remove_pointer_t<decltype(hits.data)>>;
    static_assert(sizeof(Hit) % 4 == 0, "hits are rows of 32-bit words");
    constexpr auto kWords = static_cast<std::int64_t>(sizeof(Hit) / 4);
    return device_result(hits.data, {static_cast<std::int64_t>(hits.size), kWords}, 'u', 4, owner,
                         validity, valid_until, stream);
  }
  const ArrayView<Element> view =
      host_arguments(arguments, name, static_cast<const Element*>(nullptr));
  decltype(ask(view.values)) hits;
  {
    py::gil_scoped_release unlocked;
    hits = ask(view.values);
  }
  return records_to_numpy(hits);
}

}  // namespace rsw::python
