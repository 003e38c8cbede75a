// The module `radixsweep._radixsweep`, which the package `radixsweep` re-exports: the dtypes,
// the errors, info(), BroadPhase and World.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "device_arrays.hpp"
#include "rsw/engine/build_info.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::python {
namespace {

py::dict info() {
  namespace build = rsw::build_info;
  py::dict out;
  out["version"] = std::string(build::kVersion);
  out["build_type"] = std::string(build::kBuildType);
  out["compiler"] = std::string(build::kCxxCompiler);
  out["gpu_code"] = build::kCuda;
  out["cuda_architectures"] = std::string(build::kCudaArchitectures);
  const rsw::CudaRuntimeInfo& cuda = rsw::cuda_runtime_info();
  py::list devices;
  for (const rsw::DeviceInfo& device : cuda.devices) {
    py::dict entry;
    entry["ordinal"] = device.ordinal;
    entry["name"] = device.name;
    entry["multiprocessors"] = device.multiprocessors;
    entry["memory_bytes"] = device.global_memory_bytes;
    entry["compute_capability"] =
        std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor);
    devices.append(entry);
  }
  out["devices"] = devices;
  out["no_device_reason"] = cuda.unavailable_reason;
  out["default_backend"] = std::string(rsw::to_string(rsw::resolve_backend(rsw::Backend::Auto)));
  return out;
}

}  // namespace
}  // namespace rsw::python

PYBIND11_MODULE(_radixsweep, python_module) {
  namespace py = pybind11;
  using namespace rsw::python;
  python_module.doc() =
      "RadixSweep: exact broad-phase collision detection (radix sort + sweep-and-prune) on the "
      "GPU or the CPU.";
  load_numpy_types();
  // rsw::Error becomes radixsweep.Error with the same message; an invalid argument is also a
  // ValueError, memory that cannot be had also a MemoryError. (The types live as long as the
  // interpreter: their references are never dropped.)
  static PyObject* error = PyErr_NewExceptionWithDoc(
      "radixsweep.Error", "A failure RadixSweep reports (rsw::Error): the message says what.",
      PyExc_RuntimeError, nullptr);
  static PyObject* invalid_argument = PyErr_NewExceptionWithDoc(
      "radixsweep.InvalidArgumentError",
      "An argument RadixSweep cannot take: a bad box, id, option or size.",
      py::make_tuple(py::handle(error), py::handle(PyExc_ValueError)).ptr(), nullptr);
  static PyObject* out_of_memory = PyErr_NewExceptionWithDoc(
      "radixsweep.OutOfMemoryError", "Host or device memory that cannot be had.",
      py::make_tuple(py::handle(error), py::handle(PyExc_MemoryError)).ptr(), nullptr);
  if (error == nullptr || invalid_argument == nullptr || out_of_memory == nullptr)
    throw py::error_already_set();
  python_module.attr("Error") = py::handle(error);
  python_module.attr("InvalidArgumentError") = py::handle(invalid_argument);
  python_module.attr("OutOfMemoryError") = py::handle(out_of_memory);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const rsw::Error& caught) {
      PyObject* type = error;
      if (caught.kind() == rsw::ErrorKind::InvalidArgument) type = invalid_argument;
      if (caught.kind() == rsw::ErrorKind::OutOfMemory) type = out_of_memory;
      PyErr_SetString(type, caught.what());
    }
  });
  register_dtypes(python_module);
  python_module.def(
      "info", &info,
      "The build and the machine: version, build type, whether GPU code is built, the "
      "CUDA devices, and the backend 'auto' resolves to.");
  python_module.attr("ALL_WORLDS") = rsw::physics::kAllWorlds;
  python_module.attr("MAX_WORLD") = rsw::physics::kMaxWorld;
  bind_device_array(python_module);
  bind_broad_phase(python_module);
  bind_world(python_module);
}
