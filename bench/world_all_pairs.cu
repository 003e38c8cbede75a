#include "world_all_pairs.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "rsw/engine/cuda_check.hpp"

namespace rsw::bench {
namespace {

/// Boxes of a world staged in shared memory at once, at most (two tiles of 12 KiB).
constexpr std::uint32_t kMostTile = 512;
/// Pairs a warp buffers in shared memory before it appends them with one atomic.
constexpr std::uint32_t kWarpPairs = 128;

struct Boxes {
  const float* min[3];
  const float* max[3];
};

/// A tile of boxes in shared memory: low[axis][i], high[axis][i] for `size` boxes.
struct Tile {
  float* values;
  std::uint32_t size;
  __device__ float low(int axis, std::uint32_t i) const { return values[axis * size + i]; }
  __device__ float high(int axis, std::uint32_t i) const { return values[(3 + axis) * size + i]; }
};

template <int kBlock>
__device__ void stage(const Tile& tile, const Boxes& boxes, std::uint32_t first,
                      std::uint32_t count) {
  for (std::uint32_t i = threadIdx.x; i < count; i += kBlock) {
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
      tile.values[axis * tile.size + i] = boxes.min[axis][first + i];
      tile.values[(3 + axis) * tile.size + i] = boxes.max[axis][first + i];
    }
  }
}

/// Appends the warp's buffered pairs with one atomic; pairs past `capacity` are counted only.
__device__ void flush(physics::Pair* buffered, std::uint32_t& held, physics::Pair* pairs,
                      unsigned long long capacity, unsigned long long* count) {
  const unsigned int lane = threadIdx.x % 32;
  __syncwarp();
  unsigned long long base = 0;
  if (lane == 0 && held > 0) base = atomicAdd(count, static_cast<unsigned long long>(held));
  base = __shfl_sync(0xFFFFFFFFu, base, 0);
  for (std::uint32_t k = lane; k < held; k += 32) {
    if (base + k < capacity) pairs[base + k] = buffered[k];
  }
  __syncwarp();
  held = 0;
}

/// Block w: every pair of world w's boxes, tile against tile (itself and the tiles after it),
/// a lane a box of the first tile against every box of the second; the block is as wide as
/// the worlds need (kBlock threads) and its tiles `tile` boxes long (dynamic shared memory).
template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    all_pairs(Boxes boxes, const std::uint32_t* offsets, std::uint32_t tile, physics::Pair* pairs,
              unsigned long long capacity, unsigned long long* count) {
  extern __shared__ float staged[];
  __shared__ physics::Pair buffer[kBlock / 32][kWarpPairs];
  const Tile first{staged, tile};
  const Tile other{staged + 6 * tile, tile};
  physics::Pair* buffered = buffer[threadIdx.x / 32];
  const unsigned int lane = threadIdx.x % 32;
  std::uint32_t held = 0;  // the same in every lane of a warp
  const std::uint32_t begin = offsets[blockIdx.x];
  const std::uint32_t end = offsets[blockIdx.x + 1];
  for (std::uint32_t i0 = begin; i0 < end; i0 += tile) {
    const std::uint32_t i_count = min(tile, end - i0);
    __syncthreads();
    stage<kBlock>(first, boxes, i0, i_count);
    for (std::uint32_t j0 = i0; j0 < end; j0 += tile) {
      const std::uint32_t j_count = min(tile, end - j0);
      const bool same = j0 == i0;
      const Tile& second = same ? first : other;
      __syncthreads();
      if (!same) stage<kBlock>(other, boxes, j0, j_count);
      __syncthreads();
      // Rows of the first tile a warp at a time, so that a warp's lanes loop together.
      for (std::uint32_t row0 = (threadIdx.x / 32) * 32; row0 < i_count; row0 += kBlock) {
        const std::uint32_t i = row0 + lane;
        const bool in = i < i_count;
        float low[3];
        float high[3];
#pragma unroll
        for (int axis = 0; axis < 3; ++axis) {
          low[axis] = in ? first.low(axis, i) : 0.0f;
          high[axis] = in ? first.high(axis, i) : 0.0f;
        }
        for (std::uint32_t j = same ? row0 + 1 : 0; j < j_count; ++j) {
          bool hit = in && (!same || j > i);
#pragma unroll
          for (int axis = 0; axis < 3; ++axis)
            hit = hit && second.low(axis, j) <= high[axis] && low[axis] <= second.high(axis, j);
          const unsigned int hits = __ballot_sync(0xFFFFFFFFu, hit);
          if (hit) buffered[held + __popc(hits & ((1u << lane) - 1))] = {i0 + i, j0 + j};
          held += __popc(hits);
          if (held > kWarpPairs - 32) flush(buffered, held, pairs, capacity, count);
        }
      }
    }
  }
  flush(buffered, held, pairs, capacity, count);
}

}  // namespace

std::size_t WorldAllPairs::run(const physics::DeviceAabbArrays& boxes, const std::uint32_t* offsets,
                               std::uint32_t worlds, std::uint32_t largest_world,
                               StreamHandle stream) {
  const Boxes view{{boxes.min_x.data, boxes.min_y.data, boxes.min_z.data},
                   {boxes.max_x.data, boxes.max_y.data, boxes.max_z.data}};
  device_count_.resize_discarding(1);
  if (pairs_.size() == 0) pairs_.resize_discarding(std::max<std::size_t>(4 * boxes.min_x.size, 1));
  const std::uint32_t tile = std::clamp(largest_world, 1u, kMostTile);
  const std::size_t shared_bytes = 2 * 6 * sizeof(float) * tile;
  for (;;) {
    device_count_.fill_zero(stream);
    if (worlds > 0) {
      // As many threads as the largest world has boxes, from a warp up to 256.
      if (largest_world <= 32) {
        all_pairs<32><<<worlds, 32, shared_bytes, stream>>>(view, offsets, tile, pairs_.data(),
                                                            pairs_.size(), device_count_.data());
      } else if (largest_world <= 64) {
        all_pairs<64><<<worlds, 64, shared_bytes, stream>>>(view, offsets, tile, pairs_.data(),
                                                            pairs_.size(), device_count_.data());
      } else if (largest_world <= 128) {
        all_pairs<128><<<worlds, 128, shared_bytes, stream>>>(view, offsets, tile, pairs_.data(),
                                                              pairs_.size(), device_count_.data());
      } else {
        all_pairs<256><<<worlds, 256, shared_bytes, stream>>>(view, offsets, tile, pairs_.data(),
                                                              pairs_.size(), device_count_.data());
      }
      RSW_CUDA_CHECK_LAUNCH("launching all_pairs");
    }
    host_count_.copy_small_from_device(device_count_.data(), 1, stream);
    synchronize(stream);
    count_ = static_cast<std::size_t>(host_count_[0]);
    if (count_ <= pairs_.size()) return count_;
    pairs_.resize_discarding(count_);
  }
}

}  // namespace rsw::bench
