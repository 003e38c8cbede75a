#include "gpu_baselines.hpp"

#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <cub/device/device_radix_sort.cuh>

#include "rsw/engine/cuda_check.hpp"
#include "rsw/engine/device_buffer.hpp"

namespace rsw::bench {
namespace {

class CubSort final : public BaselineSort {
 public:
  CubSort(std::size_t max_count, bool with_values)
      : alternate_keys_(max_count), alternate_values_(with_values ? max_count : 0) {
    cub::DoubleBuffer<std::uint32_t> keys(nullptr, nullptr);
    cub::DoubleBuffer<std::uint32_t> values(nullptr, nullptr);
    std::size_t bytes = 0;
    if (with_values) {
      RSW_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values,
                                                     static_cast<int>(max_count)),
                     "sizing CUB's temp storage");
    } else {
      RSW_CUDA_CHECK(
          cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, static_cast<int>(max_count)),
          "sizing CUB's temp storage");
    }
    temp_.resize_discarding(bytes);
  }

  void sort(std::uint32_t* keys, std::uint32_t* values, std::size_t count,
            StreamHandle stream) override {
    cub::DoubleBuffer<std::uint32_t> key_buffers(keys, alternate_keys_.data());
    std::size_t bytes = temp_.size();
    if (values != nullptr) {
      cub::DoubleBuffer<std::uint32_t> value_buffers(values, alternate_values_.data());
      RSW_CUDA_CHECK(
          cub::DeviceRadixSort::SortPairs(temp_.data(), bytes, key_buffers, value_buffers,
                                          static_cast<int>(count), 0, 32, stream),
          "sorting pairs with CUB");
    } else {
      RSW_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_.data(), bytes, key_buffers,
                                                    static_cast<int>(count), 0, 32, stream),
                     "sorting keys with CUB");
    }
    output_ = key_buffers.Current();
    count_ = count;
  }

  bool last_output_sorted(StreamHandle stream) override {
    return thrust::is_sorted(thrust::cuda::par.on(stream), output_, output_ + count_);
  }

  std::size_t temp_bytes() const override {
    return temp_.size() + (alternate_keys_.size() + alternate_values_.size()) * 4;
  }

 private:
  DeviceBuffer<std::uint32_t> alternate_keys_;
  DeviceBuffer<std::uint32_t> alternate_values_;
  DeviceBuffer<std::uint8_t> temp_;
  std::uint32_t* output_ = nullptr;
  std::size_t count_ = 0;
};

class ThrustSort final : public BaselineSort {
 public:
  void sort(std::uint32_t* keys, std::uint32_t* values, std::size_t count,
            StreamHandle stream) override {
    if (values != nullptr) {
      thrust::sort_by_key(thrust::cuda::par.on(stream), keys, keys + count, values);
    } else {
      thrust::sort(thrust::cuda::par.on(stream), keys, keys + count);
    }
    output_ = keys;
    count_ = count;
  }
  bool last_output_sorted(StreamHandle stream) override {
    return thrust::is_sorted(thrust::cuda::par.on(stream), output_, output_ + count_);
  }
  std::size_t temp_bytes() const override { return 0; }

 private:
  std::uint32_t* output_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace

std::unique_ptr<BaselineSort> make_cub_sort(std::size_t max_count, bool with_values) {
  return std::make_unique<CubSort>(max_count, with_values);
}

std::unique_ptr<BaselineSort> make_thrust_sort() {
  return std::make_unique<ThrustSort>();
}

}  // namespace rsw::bench
