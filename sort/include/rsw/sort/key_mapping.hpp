// Key mapping: float and int32 keys to 32-bit unsigned keys whose unsigned order is the
// original order, and back. The radix sorts only ever see unsigned keys.
//
// Floats (Terdiman / Herf): a non-negative float's bits already order correctly once the sign
// bit is set; a negative float's bits order backwards, so all of them are flipped.
// -0.0 is first turned into +0.0, so the two map to the same key (and back to +0.0).
//
// NaN policy: NaN has no place in an order. The bulk functions (map_float_keys, on host and
// device memory) reject it with rsw::Error(InvalidArgument) naming the first NaN's index.
// The scalar ordered_key(float) is total, for use where NaN was excluded: it
// maps every NaN to 0xFFFFFFFF, past +inf (0xFF800000). On error the output keys are
// unspecified; the input is never modified.
#pragma once

#include <bit>
#include <cstdint>
#include <span>

#include "rsw/engine/api.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::sort {

/// The key of a float: ordered_key(a) < ordered_key(b) iff a < b; -0.0 and +0.0 give the same
/// key; every NaN gives 0xFFFFFFFF.
constexpr std::uint32_t ordered_key(float value) noexcept {
  if (value != value) return 0xFFFFFFFFu;  // NaN
  if (value == 0.0f) value = 0.0f;         // -0.0 -> +0.0
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t mask = (bits >> 31) != 0 ? 0xFFFFFFFFu : 0x80000000u;
  return bits ^ mask;
}

/// The float whose ordered_key is `key` (+0.0 for the key of ±0.0).
constexpr float float_from_key(std::uint32_t key) noexcept {
  const std::uint32_t mask = (key >> 31) != 0 ? 0x80000000u : 0xFFFFFFFFu;
  return std::bit_cast<float>(key ^ mask);
}

/// The key of a signed integer: flips the sign bit, so INT32_MIN maps to 0.
constexpr std::uint32_t ordered_key(std::int32_t value) noexcept {
  return static_cast<std::uint32_t>(value) ^ 0x80000000u;
}

/// The int32 whose ordered_key is `key`.
constexpr std::int32_t int_from_key(std::uint32_t key) noexcept {
  return static_cast<std::int32_t>(key ^ 0x80000000u);
}

/// keys[i] = ordered_key(values[i]); throws rsw::Error(InvalidArgument) naming the first NaN
/// or a size mismatch.
RSW_API void map_float_keys(std::span<const float> values, std::span<std::uint32_t> keys);
/// values[i] = float_from_key(keys[i]).
RSW_API void unmap_float_keys(std::span<const std::uint32_t> keys, std::span<float> values);
/// keys[i] = ordered_key(values[i]).
RSW_API void map_int_keys(std::span<const std::int32_t> values, std::span<std::uint32_t> keys);
/// values[i] = int_from_key(keys[i]).
RSW_API void unmap_int_keys(std::span<const std::uint32_t> keys, std::span<std::int32_t> values);

/// The same on device memory, on `stream`. map_float_keys waits for the stream to learn
/// whether a NaN was found (then it throws, naming the first).
RSW_API void map_float_keys(DeviceSpan<const float> values, DeviceSpan<std::uint32_t> keys,
                            StreamHandle stream = nullptr);
RSW_API void unmap_float_keys(DeviceSpan<const std::uint32_t> keys, DeviceSpan<float> values,
                              StreamHandle stream = nullptr);
RSW_API void map_int_keys(DeviceSpan<const std::int32_t> values, DeviceSpan<std::uint32_t> keys,
                          StreamHandle stream = nullptr);
RSW_API void unmap_int_keys(DeviceSpan<const std::uint32_t> keys, DeviceSpan<std::int32_t> values,
                            StreamHandle stream = nullptr);

}  // namespace rsw::sort
