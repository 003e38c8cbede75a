#include "arrays.hpp"

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "rsw/physics/broad_phase.hpp"

namespace rsw::python {
namespace {

// numpy.ma.MaskedArray, looked up once when the module is imported (load_numpy_types) rather
// than at each call; held for the interpreter's life.
PyObject* masked_array_type = nullptr;

std::string type_name(py::handle object) {
  return py::str(py::type::of(object).attr("__module__")).cast<std::string>() + "." +
         py::str(py::type::of(object).attr("__qualname__")).cast<std::string>();
}

std::string shape_text(const py::array& array) {
  std::string text = "(";
  for (py::ssize_t axis = 0; axis < array.ndim(); ++axis) {
    if (axis > 0) text += ", ";
    text += std::to_string(array.shape(axis));
  }
  return text + (array.ndim() == 1 ? ",)" : ")");
}

// `object` as a NumPy array of `dtype` in C order, else the error naming `name`.
py::array checked(py::handle object, const char* name, const py::dtype& dtype,
                  const std::string& dtype_name) {
  if (!py::isinstance<py::array>(object)) {
    throw py::type_error(std::string(name) + ": expected a NumPy array (numpy.ndarray) of " +
                         dtype_name + ", got " + type_name(object));
  }
  auto array = py::reinterpret_borrow<py::array>(object);
  if (!array.dtype().equal(dtype)) {
    throw py::type_error(std::string(name) + ": expected " + dtype_name + ", got " +
                         py::str(array.dtype()).cast<std::string>());
  }
  if ((array.flags() & py::array::c_style) == 0) {
    throw py::value_error(std::string(name) +
                          ": expected a C-contiguous array (numpy.ascontiguousarray makes one)");
  }
  // Every element type taken is made of 4-byte fields, read in place.
  if (reinterpret_cast<std::uintptr_t>(array.data()) % 4 != 0) {
    throw py::value_error(std::string(name) +
                          ": expected an aligned array (numpy.ascontiguousarray makes one)");
  }
  const int masked = PyObject_IsInstance(object.ptr(), masked_array_type);
  if (masked < 0) throw py::error_already_set();
  if (masked != 0) {
    throw py::value_error(std::string(name) +
                          ": a masked array cannot be read (its mask would "
                          "be ignored; numpy.ma.compress_rows drops rows)");
  }
  return array;
}

// The rows of a float32 array of rows of `width` floats, given as (n, width) or, for one row,
// (width,); boxes also as (n, 2, 3) and (2, 3).
py::ssize_t rows_of(const py::array& array, const char* name, py::ssize_t width,
                    const std::string& shapes, bool pairs_of_three) {
  const auto dims = array.ndim();
  if (dims == 1 && array.shape(0) == width) return 1;
  if (dims == 2 && array.shape(1) == width) return array.shape(0);
  if (pairs_of_three) {
    if (dims == 2 && array.shape(0) == 2 && array.shape(1) == 3) return 1;
    if (dims == 3 && array.shape(1) == 2 && array.shape(2) == 3) return array.shape(0);
  }
  throw py::value_error(std::string(name) + ": expected shape " + shapes + ", got " +
                        shape_text(array));
}

// A new array of `shape` (whose size is values.size()) holding a copy of `values`.
template <class T>
py::array copy_to_numpy(std::span<const T> values, std::vector<py::ssize_t> shape) {
  py::array out(py::dtype::of<T>(), shape);
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size_bytes());
  return out;
}

}  // namespace

void load_numpy_types() {
  py::object type = py::module_::import("numpy.ma").attr("MaskedArray");
  masked_array_type = type.release().ptr();
}

ArrayView<physics::Aabb> boxes_from(py::handle object, const char* name) {
  static_assert(sizeof(physics::Aabb) == 6 * sizeof(float));
  py::array array = checked(object, name, py::dtype::of<float>(), "float32");
  const py::ssize_t rows = rows_of(array, name, 6, "(n, 6) or (n, 2, 3)", true);
  return {array, {static_cast<const physics::Aabb*>(array.data()), static_cast<std::size_t>(rows)}};
}

ArrayView<physics::Ray> rays_from(py::handle object, const char* name) {
  static_assert(sizeof(physics::Ray) == 7 * sizeof(float));
  py::array array = checked(object, name, py::dtype::of<float>(), "float32");
  const auto dims = array.ndim();
  const bool without_end = (dims == 1 && array.shape(0) == 6) || (dims == 2 && array.shape(1) == 6);
  if (!without_end) {
    const py::ssize_t rows = rows_of(array, name, 7, "(n, 7) or (n, 6)", false);
    return {array,
            {static_cast<const physics::Ray*>(array.data()), static_cast<std::size_t>(rows)}};
  }
  // Rays without an end: each row copied with max_t infinite.
  const py::ssize_t rows = dims == 1 ? 1 : array.shape(0);
  py::array copy(py::dtype::of<float>(), {rows, py::ssize_t{7}});
  const auto* in = static_cast<const float*>(array.data());
  auto* out = static_cast<float*>(copy.mutable_data());
  for (py::ssize_t row = 0; row < rows; ++row) {
    std::memcpy(out + row * 7, in + row * 6, 6 * sizeof(float));
    out[row * 7 + 6] = std::numeric_limits<float>::infinity();
  }
  return {copy, {static_cast<const physics::Ray*>(copy.data()), static_cast<std::size_t>(rows)}};
}

ArrayView<physics::ProxyId> ids_from(py::handle object, const char* name) {
  // One id read from an array (ids[0]) is a NumPy scalar: an array of one.
  const py::module_ numpy = py::module_::import("numpy");
  py::object given = py::reinterpret_borrow<py::object>(object);
  if (py::isinstance(given, numpy.attr("generic"))) given = numpy.attr("asarray")(given);
  // The handle's layout in plain integers: uint64 (index | generation << 32), or uint32 pairs.
  if (py::isinstance<py::array>(given)) {
    const auto plain = py::reinterpret_borrow<py::array>(given);
    // uint64 of shape (n,), or () for one id (a NumPy uint64 scalar).
    const bool as_uint64 = plain.dtype().equal(py::dtype::of<std::uint64_t>()) && plain.ndim() <= 1;
    const bool as_pairs = plain.dtype().equal(py::dtype::of<std::uint32_t>()) &&
                          plain.ndim() == 2 && plain.shape(1) == 2;
    if (as_uint64 || as_pairs) {
      if ((plain.flags() & py::array::c_style) == 0) {
        throw py::value_error(std::string(name) + ": expected a C-contiguous array");
      }
      return {plain,
              {static_cast<const physics::ProxyId*>(plain.data()),
               plain.ndim() == 0 ? std::size_t{1} : static_cast<std::size_t>(plain.shape(0))}};
    }
  }
  py::array array = checked(given, name, py::dtype::of<physics::ProxyId>(),
                            "radixsweep.proxy_id_dtype (or uint64 (n,), uint32 (n, 2))");
  return {
      array,
      {static_cast<const physics::ProxyId*>(array.data()), static_cast<std::size_t>(array.size())}};
}

ArrayView<std::uint32_t> uint32_from(py::handle object, const char* name, std::size_t count) {
  if (object.is_none()) return {};
  py::array array = checked(object, name, py::dtype::of<std::uint32_t>(), "uint32");
  if (array.ndim() != 1 || static_cast<std::size_t>(array.shape(0)) != count) {
    throw py::value_error(std::string(name) + ": expected shape (" + std::to_string(count) +
                          ",), one per box, got " + shape_text(array));
  }
  return {array, {static_cast<const std::uint32_t*>(array.data()), count}};
}

py::array pairs_to_numpy(std::span<const physics::Pair> pairs) {
  static_assert(sizeof(physics::Pair) == 2 * sizeof(std::uint32_t));
  return copy_to_numpy(
      std::span(reinterpret_cast<const std::uint32_t*>(pairs.data()), 2 * pairs.size()),
      {static_cast<py::ssize_t>(pairs.size()), 2});
}

py::array proxy_pairs_to_numpy(std::span<const physics::ProxyPair> pairs) {
  static_assert(sizeof(physics::ProxyPair) == 2 * sizeof(physics::ProxyId));
  return copy_to_numpy(
      std::span(reinterpret_cast<const physics::ProxyId*>(pairs.data()), 2 * pairs.size()),
      {static_cast<py::ssize_t>(pairs.size()), 2});
}

void register_dtypes(py::module_& module) {
  using physics::BoxQueryHit;
  using physics::BoxRayHit;
  using physics::ProxyId;
  using physics::QueryHit;
  using physics::RayHit;
  PYBIND11_NUMPY_DTYPE(ProxyId, index, generation);
  PYBIND11_NUMPY_DTYPE(QueryHit, query, proxy);
  PYBIND11_NUMPY_DTYPE(RayHit, ray, proxy, t);
  PYBIND11_NUMPY_DTYPE(BoxQueryHit, query, box);
  PYBIND11_NUMPY_DTYPE(BoxRayHit, ray, box, t);
  module.attr("proxy_id_dtype") = py::dtype::of<ProxyId>();
  module.attr("query_hit_dtype") = py::dtype::of<QueryHit>();
  module.attr("ray_hit_dtype") = py::dtype::of<RayHit>();
  module.attr("box_query_hit_dtype") = py::dtype::of<BoxQueryHit>();
  module.attr("box_ray_hit_dtype") = py::dtype::of<BoxRayHit>();
}

}  // namespace rsw::python
