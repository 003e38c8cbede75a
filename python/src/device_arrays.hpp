// Arrays in device memory in and out of the module, without copies. Inputs come by
// __cuda_array_interface__ (v2 or v3) or __dlpack__ and are used where they lie; results are
// DeviceArray objects that expose both protocols over the library's own device buffers, valid
// until the call that replaces them (reading one later raises).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dlpack.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/world.hpp"

namespace rsw::python {

namespace py = pybind11;

/// An argument array in device memory, in C order, its producer kept alive (and a DLPack
/// tensor given back when this goes). Ready to be read on `stream` (nullptr: the library's
/// own streams, which follow the legacy default stream) once made: `stream` is ordered after
/// the interface's stream on the device, or the DLPack producer is asked to order its work
/// before `stream`.
class DeviceInput {
 public:
  /// `object`'s array when it lies in device memory (it has __cuda_array_interface__, or its
  /// __dlpack_device__ names a CUDA device), nullptr when it does not (a host array); a
  /// TypeError or ValueError naming `name` when it cannot be read.
  static std::unique_ptr<DeviceInput> of(py::handle object, const char* name, StreamHandle stream);
  DeviceInput(const DeviceInput&) = delete;
  DeviceInput& operator=(const DeviceInput&) = delete;

  const void* data() const { return data_; }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  /// 'f' (floating), 'u' (unsigned) or 'i' (signed), and the bytes of an element.
  char kind() const { return kind_; }
  int bytes() const { return bytes_; }
  /// "float32", "uint32", ...
  std::string dtype_name() const;

 private:
  // `interface`: the object's __cuda_array_interface__, or None to read it by DLPack.
  DeviceInput(py::handle object, const py::object& interface, const char* name,
              StreamHandle stream);
  void read_interface(const py::object& interface, const std::string& what, StreamHandle stream);
  void read_dlpack(const std::string& what, StreamHandle stream);

  // Gives a DLPack tensor back to its producer.
  struct GiveBack {
    void operator()(dlpack::ManagedTensor* managed) const;
  };

  py::object keep_;
  std::unique_ptr<dlpack::ManagedTensor, GiveBack> managed_;
  const void* data_ = nullptr;
  std::vector<std::int64_t> shape_;
  char kind_ = 0;
  int bytes_ = 0;
};

/// The typed views of device inputs, checked as the host ones are (the same shapes, and
/// messages naming `name`). Ids on the device are uint64 (index | generation << 32) of shape
/// (n,), or uint32 of shape (n, 2): the handle's layout.
DeviceSpan<const physics::Aabb> device_boxes(const DeviceInput& input, const char* name);
DeviceSpan<const physics::Ray> device_rays(const DeviceInput& input, const char* name);
DeviceSpan<const physics::ProxyId> device_ids(const DeviceInput& input, const char* name);
DeviceSpan<const std::uint32_t> device_uint32(const DeviceInput& input, const char* name,
                                              std::size_t count);

/// When a result's owner replaces it: a counter the owner advances, and what the result's
/// reader is told ("the World's next step()").
struct Validity {
  std::shared_ptr<std::uint64_t> epoch = std::make_shared<std::uint64_t>(0);
  void advance() { ++*epoch; }
};

/// A DeviceArray over `data` (device memory the owner holds): elements of `kind` and `bytes`,
/// of `shape`, valid while `validity` has not advanced; `owner` is kept alive with it. It is
/// ready in `stream`'s order (nullptr: when the call that made it returned).
py::object device_result(const void* data, std::vector<std::int64_t> shape, char kind, int bytes,
                         py::object owner, const Validity& validity, std::string valid_until,
                         StreamHandle stream);

/// A DeviceArray over `data`, inside `storage`, which it owns: valid as long as it lives.
py::object device_result(std::shared_ptr<const void> storage, const void* data,
                         std::vector<std::int64_t> shape, char kind, int bytes,
                         StreamHandle stream);

/// Registers radixsweep.DeviceArray.
void bind_device_array(py::module_& module);

}  // namespace rsw::python
