// The DLPack ABI (the "dltensor" capsule that CuPy, PyTorch, JAX and NumPy exchange), as the
// DLPack specification (v0.8) lays it out: the structs a producer fills and a consumer reads.
#pragma once

#include <cstdint>

namespace rsw::python::dlpack {

/// DLDeviceType values the module meets.
enum DeviceType : std::int32_t {
  kCpu = 1,
  kCuda = 2,
  kCudaHost = 3,
  kCudaManaged = 13,
};

/// DLDataTypeCode values.
enum TypeCode : std::uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
};

struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};

struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  ///< in elements; null: C order
  std::uint64_t byte_offset;
};

struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

/// The capsule's names: before a consumer takes the tensor, and after.
inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";

}  // namespace rsw::python::dlpack
