// NumPy arrays in and out of the module: the inputs checked (type, dtype, shape, layout) and
// viewed in place as the C++ API's spans, the results copied into new arrays. A bad argument
// is a TypeError (not a NumPy array, another dtype) or a ValueError (shape, layout, length),
// naming the argument and what was expected.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "rsw/physics/aabb.hpp"
#include "rsw/physics/world.hpp"

namespace rsw::python {

namespace py = pybind11;

/// A view of a caller's array, which it keeps alive.
template <class T>
struct ArrayView {
  py::array array;
  std::span<const T> values;
};

/// Looks up the NumPy types the checks name; once, when the module is imported.
void load_numpy_types();

/// Boxes as an (n, 6) or (n, 2, 3) float32 array (min x, y, z, max x, y, z a row), or one box
/// as (6,) or (2, 3).
ArrayView<physics::Aabb> boxes_from(py::handle object, const char* name);
/// Rays as an (n, 7) float32 array (origin, direction, max_t a row), or (n, 6) (no end: max_t
/// infinite, copied), or one ray as (7,) or (6,).
ArrayView<physics::Ray> rays_from(py::handle object, const char* name);
/// Proxy ids as an array of proxy_id_dtype, any shape (flattened), or one ProxyId; or in the
/// handle's layout as plain integers: uint64 (n,) (index | generation << 32), uint32 (n, 2).
ArrayView<physics::ProxyId> ids_from(py::handle object, const char* name);
/// uint32 values, one per box (`count`), or none for None.
ArrayView<std::uint32_t> uint32_from(py::handle object, const char* name, std::size_t count);

/// Copies into new arrays: pairs of box indices as (m, 2) uint32; proxy pairs as (m, 2) of
/// proxy_id_dtype.
py::array pairs_to_numpy(std::span<const physics::Pair> pairs);
py::array proxy_pairs_to_numpy(std::span<const physics::ProxyPair> pairs);

/// A copy of `records` as a new (n,) array of their dtype: a number type, or a struct whose
/// dtype register_dtypes() made (ids, hits).
template <class T>
py::array records_to_numpy(std::span<const T> records) {
  const std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(records.size())};
  py::array out(py::dtype::of<T>(), shape);
  if (!records.empty()) std::memcpy(out.mutable_data(), records.data(), records.size_bytes());
  return out;
}

/// Registers the structured dtypes (proxy_id_dtype, ...) with NumPy and the module.
void register_dtypes(py::module_& module);

}  // namespace rsw::python
