#include "device_arrays.hpp"

#include <pybind11/numpy.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::python {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t axis = 0; axis < shape.size(); ++axis)
    text += (axis > 0 ? ", " : "") + std::to_string(shape[axis]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

py::tuple shape_tuple(const std::vector<std::int64_t>& shape) {
  py::tuple tuple(shape.size());
  for (std::size_t axis = 0; axis < shape.size(); ++axis)
    tuple[axis] = py::int_(shape[axis]);
  return tuple;
}

// Whether `strides` (in bytes; empty: none given) lay out `shape` in C order.
bool c_ordered(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
               std::int64_t element_bytes) {
  if (strides.empty()) return true;
  std::int64_t expected = element_bytes;
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    if (shape[axis] != 1 && strides[axis] != expected) return false;
    expected *= shape[axis];
  }
  return true;
}

// The object's attribute `name`, or None when it has none; any other error in reading it (a
// property that raises) propagates.
py::object attribute_or_none(py::handle object, const char* name) {
  PyObject* value = PyObject_GetAttrString(object.ptr(), name);
  if (value != nullptr) return py::reinterpret_steal<py::object>(value);
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
  PyErr_Clear();
  return py::none();
}

// Whether the object's __dlpack_device__ names a CUDA device; a TypeError naming `name` when
// it does not return a (device type, device id) pair.
bool dlpack_on_device(py::handle object, const char* name) {
  const py::object device_of = attribute_or_none(object, "__dlpack_device__");
  if (device_of.is_none()) return false;
  const py::object device = device_of();
  std::pair<int, int> pair;
  try {
    pair = device.cast<std::pair<int, int>>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(name) + ": __dlpack_device__() returned " +
                         py::repr(device).cast<std::string>() +
                         ", not a (device type, device id) pair");
  }
  return pair.first == dlpack::kCuda || pair.first == dlpack::kCudaManaged;
}

// A __cuda_array_interface__ typestr's element: byte order '<' or '=' ('|' for one byte),
// kind, bytes; a TypeError naming `what` for anything else.
std::pair<char, int> element_of(const std::string& typestr, const std::string& what) {
  const auto bad = [&] {
    return py::type_error(what + ": expected a little-endian number type, got typestr '" + typestr +
                          "'");
  };
  if (typestr.size() < 3 || typestr.size() > 4) throw bad();
  const std::string digits = typestr.substr(2);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw bad();
  const int bytes = std::stoi(digits);
  const char order = typestr[0];
  if (!(order == '<' || order == '=' || (order == '|' && bytes == 1))) throw bad();
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) throw bad();
  return {typestr[1], bytes};
}

// A shape's extents: a ValueError naming `what` for a negative one.
void check_extents(const std::vector<std::int64_t>& shape, const std::string& what) {
  if (std::any_of(shape.begin(), shape.end(), [](std::int64_t extent) { return extent < 0; })) {
    throw py::value_error(what + ": a negative extent in shape " + shape_text(shape));
  }
}

// The legacy default stream as the interfaces name it (CUDA's cudaStreamLegacy), which the
// library's own streams follow.
constexpr std::uintptr_t kLegacyDefaultStream = 1;

}  // namespace

std::unique_ptr<DeviceInput> DeviceInput::of(py::handle object, const char* name,
                                             StreamHandle stream) {
  py::object interface = attribute_or_none(object, "__cuda_array_interface__");
  if (interface.is_none() && !dlpack_on_device(object, name)) return nullptr;
  return std::unique_ptr<DeviceInput>(new DeviceInput(object, interface, name, stream));
}

DeviceInput::DeviceInput(py::handle object, const py::object& interface, const char* name,
                         StreamHandle stream)
    : keep_(py::reinterpret_borrow<py::object>(object)) {
  const std::string what = name;
  if (interface.is_none()) {
    read_dlpack(what, stream);
    return;
  }
  // A dictionary of the wrong form is a ValueError naming the argument, not a KeyError or a
  // failed cast.
  try {
    read_interface(interface, what, stream);
  } catch (const py::cast_error& error) {
    throw py::value_error(what + ": a malformed __cuda_array_interface__ (" + error.what() + ")");
  } catch (py::error_already_set& error) {
    if (!error.matches(PyExc_KeyError) && !error.matches(PyExc_TypeError) &&
        !error.matches(PyExc_IndexError)) {
      throw;
    }
    throw py::value_error(what + ": a malformed __cuda_array_interface__ (" + error.what() + ")");
  }
}

void DeviceInput::read_interface(const py::object& interface_object, const std::string& what,
                                 StreamHandle stream) {
  if (!py::isinstance<py::dict>(interface_object)) {
    throw py::value_error(what + ": __cuda_array_interface__ is not a dict");
  }
  const auto interface = interface_object.cast<py::dict>();
  for (const py::handle extent : interface["shape"].cast<py::tuple>())
    shape_.push_back(extent.cast<std::int64_t>());
  check_extents(shape_, what);
  std::tie(kind_, bytes_) = element_of(interface["typestr"].cast<std::string>(), what);
  data_ =
      reinterpret_cast<const void*>(interface["data"].cast<py::tuple>()[0].cast<std::uintptr_t>());
  std::vector<std::int64_t> strides;
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    for (const py::handle stride : interface["strides"].cast<py::tuple>())
      strides.push_back(stride.cast<std::int64_t>());
    if (strides.size() != shape_.size()) {
      throw py::value_error(what + ": __cuda_array_interface__ has " +
                            std::to_string(strides.size()) + " strides for " +
                            std::to_string(shape_.size()) + " axes");
    }
  }
  if (!c_ordered(shape_, strides, bytes_)) {
    throw py::value_error(what + ": expected a C-contiguous array in device memory");
  }
  if (interface.contains("mask") && !interface["mask"].is_none()) {
    throw py::value_error(what + ": a masked array cannot be read");
  }
  // Version 3: the producer's work on its stream must be done before the data is read. The
  // library's own streams (stream nullptr) follow the legacy default stream already; any
  // other pairing is ordered on the device, the host not waiting.
  if (interface.contains("stream") && !interface["stream"].is_none()) {
    const auto producer = interface["stream"].cast<std::uintptr_t>();
    if (producer == 0) {
      throw py::value_error(what +
                            ": __cuda_array_interface__ names stream 0, which the "
                            "interface disallows (1: the legacy default stream)");
    }
    // Without a stream of the caller's, the legacy default stream waits, by name (not the
    // null handle, which a per-thread default stream build would read otherwise).
    const auto consumer =
        stream != nullptr ? stream : reinterpret_cast<StreamHandle>(kLegacyDefaultStream);
    if (stream != nullptr || producer != kLegacyDefaultStream)
      order_after(consumer, reinterpret_cast<StreamHandle>(producer));
  }
}

void DeviceInput::read_dlpack(const std::string& what, StreamHandle stream) {
  // The producer orders its work before `stream`, or before the legacy default stream (1),
  // which the library's own streams follow; the tensor is ours until the deleter gives it
  // back (when this goes, also when a check below throws).
  const std::uintptr_t consumer =
      stream != nullptr ? reinterpret_cast<std::uintptr_t>(stream) : kLegacyDefaultStream;
  py::object capsule = keep_.attr("__dlpack__")(py::arg("stream") = consumer);
  auto* managed = static_cast<dlpack::ManagedTensor*>(
      PyCapsule_GetPointer(capsule.ptr(), dlpack::kCapsuleName));
  if (managed == nullptr) throw py::error_already_set();
  if (PyCapsule_SetName(capsule.ptr(), dlpack::kUsedCapsuleName) != 0)
    throw py::error_already_set();
  managed_.reset(managed);
  const dlpack::Tensor& tensor = managed->dl_tensor;
  shape_.assign(tensor.shape, tensor.shape + tensor.ndim);
  check_extents(shape_, what);
  if (tensor.dtype.lanes != 1) throw py::type_error(what + ": vector element types are not taken");
  kind_ = tensor.dtype.code == dlpack::kFloat  ? 'f'
          : tensor.dtype.code == dlpack::kUInt ? 'u'
                                               : 'i';
  if (tensor.dtype.code > dlpack::kFloat) {
    throw py::type_error(what + ": expected an integer or floating element type");
  }
  bytes_ = tensor.dtype.bits / 8;
  std::vector<std::int64_t> strides;
  if (tensor.strides != nullptr) {
    for (std::int32_t axis = 0; axis < tensor.ndim; ++axis)
      strides.push_back(tensor.strides[axis] * bytes_);
  }
  if (!c_ordered(shape_, strides, bytes_)) {
    throw py::value_error(what + ": expected a C-contiguous array in device memory");
  }
  data_ = static_cast<const char*>(tensor.data) + tensor.byte_offset;
}

void DeviceInput::GiveBack::operator()(dlpack::ManagedTensor* managed) const {
  if (managed->deleter != nullptr) managed->deleter(managed);
}

std::string DeviceInput::dtype_name() const {
  const char* kind = kind_ == 'f' ? "float" : kind_ == 'u' ? "uint" : kind_ == 'i' ? "int" : "?";
  return kind + std::to_string(bytes_ * 8);
}

namespace {

// The input's data for `count` elements or rows: a ValueError naming `name` for a null pointer
// to some.
const void* data_for(const DeviceInput& input, const char* name, std::size_t count) {
  if (count > 0 && input.data() == nullptr) {
    throw py::value_error(std::string(name) + ": a null data pointer for " + std::to_string(count) +
                          " rows");
  }
  return input.data();
}

// The input's rows of `width` elements of kind `kind` and `bytes`, given as (n, width), (width,)
// or, for boxes, (n, 2, 3) and (2, 3); else the error naming `name`.
std::size_t device_rows(const DeviceInput& input, const char* name, char kind, int bytes,
                        const char* dtype, std::int64_t width, const std::string& shapes,
                        bool pairs_of_three) {
  if (input.kind() != kind || input.bytes() != bytes) {
    throw py::type_error(std::string(name) + ": expected " + dtype + ", got " + input.dtype_name());
  }
  const auto& shape = input.shape();
  const auto rows = [&]() -> std::int64_t {
    if (shape.size() == 1 && shape[0] == width) return 1;
    if (shape.size() == 2 && shape[1] == width) return shape[0];
    if (pairs_of_three && shape.size() == 2 && shape[0] == 2 && shape[1] == 3) return 1;
    if (pairs_of_three && shape.size() == 3 && shape[1] == 2 && shape[2] == 3) return shape[0];
    return -1;
  }();
  if (rows < 0) {
    throw py::value_error(std::string(name) + ": expected shape " + shapes + ", got " +
                          shape_text(shape));
  }
  return static_cast<std::size_t>(rows);
}

}  // namespace

DeviceSpan<const physics::Aabb> device_boxes(const DeviceInput& input, const char* name) {
  const std::size_t rows =
      device_rows(input, name, 'f', 4, "float32", 6, "(n, 6) or (n, 2, 3)", true);
  return {static_cast<const physics::Aabb*>(data_for(input, name, rows)), rows};
}

DeviceSpan<const physics::Ray> device_rays(const DeviceInput& input, const char* name) {
  const std::size_t rows = device_rows(input, name, 'f', 4, "float32", 7,
                                       "(n, 7) (origin, direction, max_t) in device memory", false);
  return {static_cast<const physics::Ray*>(data_for(input, name, rows)), rows};
}

DeviceSpan<const physics::ProxyId> device_ids(const DeviceInput& input, const char* name) {
  static_assert(sizeof(physics::ProxyId) == 8);
  const auto& shape = input.shape();
  const bool uint64 = input.kind() == 'u' && input.bytes() == 8 && shape.size() == 1;
  const bool uint32_pairs =
      input.kind() == 'u' && input.bytes() == 4 && shape.size() == 2 && shape[1] == 2;
  if (uint64 || uint32_pairs) {
    const auto count = static_cast<std::size_t>(shape[0]);  // not negative (DeviceInput)
    return {static_cast<const physics::ProxyId*>(data_for(input, name, count)), count};
  }
  throw py::type_error(std::string(name) + ": expected ids in device memory as uint64 (n,) or " +
                       "uint32 (n, 2), got " + input.dtype_name() + " " + shape_text(shape));
}

DeviceSpan<const std::uint32_t> device_uint32(const DeviceInput& input, const char* name,
                                              std::size_t count) {
  if (input.kind() != 'u' || input.bytes() != 4) {
    throw py::type_error(std::string(name) + ": expected uint32, got " + input.dtype_name());
  }
  if (input.shape().size() != 1 || static_cast<std::size_t>(input.shape()[0]) != count) {
    throw py::value_error(std::string(name) + ": expected shape (" + std::to_string(count) +
                          ",), one per box, got " + shape_text(input.shape()));
  }
  return {static_cast<const std::uint32_t*>(data_for(input, name, count)), count};
}

namespace {

// A result in device memory: the library's buffer, its shape and element type, and when it
// stops being valid.
struct DeviceArray {
  const void* data = nullptr;
  std::vector<std::int64_t> shape;
  char kind = 'u';
  int bytes = 4;
  py::object owner;                      // the World or BroadPhase whose buffer it is, or none
  std::shared_ptr<const void> storage;   // or the buffer it owns
  std::shared_ptr<std::uint64_t> epoch;  // none: valid as long as it lives
  std::uint64_t born = 0;
  std::string valid_until;
  int device = 0;
  StreamHandle stream = nullptr;  // ready in its order; none: ready now

  void check_valid() const {
    if (epoch != nullptr && *epoch != born) {
      throw rsw::Error(rsw::ErrorKind::InvalidArgument,
                       "this device array was valid until " + valid_until);
    }
  }

  std::string typestr() const { return std::string("<") + kind + std::to_string(bytes); }
};

// What a DLPack consumer holds: the tensor, its shape, and the array (which holds its owner).
struct Exported {
  dlpack::ManagedTensor managed;
  std::vector<std::int64_t> shape;
  py::object array;
};

void delete_exported(dlpack::ManagedTensor* managed) {
  PyGILState_STATE state = PyGILState_Ensure();
  delete static_cast<Exported*>(managed->manager_ctx);
  PyGILState_Release(state);
}

// A capsule nobody took gives its tensor back.
void free_unused_capsule(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, dlpack::kCapsuleName) == 0) return;  // taken (renamed)
  auto* managed =
      static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleName));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

}  // namespace

py::object device_result(const void* data, std::vector<std::int64_t> shape, char kind, int bytes,
                         py::object owner, const Validity& validity, std::string valid_until,
                         StreamHandle stream) {
  DeviceArray array{.data = data, .shape = std::move(shape), .kind = kind, .bytes = bytes};
  array.owner = std::move(owner);
  array.epoch = validity.epoch;
  array.born = *validity.epoch;
  array.valid_until = std::move(valid_until);
  array.device = rsw::current_cuda_device();
  array.stream = stream;
  return py::cast(std::move(array));
}

py::object device_result(std::shared_ptr<const void> storage, const void* data,
                         std::vector<std::int64_t> shape, char kind, int bytes,
                         StreamHandle stream) {
  DeviceArray array{.data = data, .shape = std::move(shape), .kind = kind, .bytes = bytes};
  array.storage = std::move(storage);
  array.device = rsw::current_cuda_device();
  array.stream = stream;
  return py::cast(std::move(array));
}

void bind_device_array(py::module_& module) {
  py::class_<DeviceArray>(module, "DeviceArray",
                          R"doc(A result in the library's device memory, read without a copy through
__cuda_array_interface__ (cupy.asarray(a)) or __dlpack__ (torch.from_dlpack(a),
cupy.from_dlpack(a)). Valid until the call that replaces it (the next update() or step(),
the next query() or raycast()): reading it later raises InvalidArgumentError, and a consumer
that took it before must not read it after.)doc")
      .def_property_readonly("shape",
                             [](const DeviceArray& self) { return shape_tuple(self.shape); })
      .def_property_readonly(
          "dtype",
          [](const DeviceArray& self) { return py::dtype::from_args(py::str(self.typestr())); })
      .def("__len__",
           [](const DeviceArray& self) {
             return self.shape.empty() ? 0 : static_cast<std::size_t>(self.shape[0]);
           })
      .def_property_readonly(
          "__cuda_array_interface__",
          [](const DeviceArray& self) {
            self.check_valid();
            py::dict interface;
            interface["shape"] = shape_tuple(self.shape);
            interface["typestr"] = self.typestr();
            interface["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(self.data), true);
            interface["strides"] = py::none();
            interface["version"] = 3;
            if (self.stream != nullptr) {
              interface["stream"] = reinterpret_cast<std::uintptr_t>(self.stream);
            } else {
              interface["stream"] = py::none();  // ready when the call that made it returned
            }
            return interface;
          })
      .def(
          "__dlpack__",
          [](py::object self_object, const py::object&) {
            const auto& self = self_object.cast<const DeviceArray&>();
            self.check_valid();
            // Ready for any consumer's stream: the owner's work on its own stream done first.
            if (self.stream != nullptr) synchronize(self.stream);
            auto* exported = new Exported{{}, self.shape, self_object};
            dlpack::Tensor& tensor = exported->managed.dl_tensor;
            tensor.data = const_cast<void*>(self.data);
            tensor.device = {dlpack::kCuda, self.device};
            tensor.ndim = static_cast<std::int32_t>(self.shape.size());
            tensor.dtype = {static_cast<std::uint8_t>(self.kind == 'f'   ? dlpack::kFloat
                                                      : self.kind == 'u' ? dlpack::kUInt
                                                                         : dlpack::kInt),
                            static_cast<std::uint8_t>(self.bytes * 8), 1};
            tensor.shape = exported->shape.data();
            tensor.strides = nullptr;
            tensor.byte_offset = 0;
            exported->managed.manager_ctx = exported;
            exported->managed.deleter = delete_exported;
            return py::capsule(&exported->managed, dlpack::kCapsuleName, free_unused_capsule);
          },
          py::kw_only(), py::arg("stream") = py::none(),
          "The array as a DLPack capsule, ready on every stream (the owner's stream, when it has "
          "one of its own, is waited for first).")
      .def("__dlpack_device__",
           [](const DeviceArray& self) { return py::make_tuple(int{dlpack::kCuda}, self.device); });
}

}  // namespace rsw::python
