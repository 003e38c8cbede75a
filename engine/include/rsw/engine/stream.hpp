// CUDA streams and events as opaque handles, so that host code needs no CUDA header.
#pragma once

#include "rsw/engine/api.hpp"

// The runtime's own handle types: cudaStream_t is CUstream_st*, cudaEvent_t is CUevent_st*.
struct CUstream_st;
struct CUevent_st;

namespace rsw {

/// A cudaStream_t. nullptr is the legacy default stream.
using StreamHandle = CUstream_st*;
/// A cudaEvent_t.
using EventHandle = CUevent_st*;

/// How an owned stream's work is ordered with the legacy default stream (nullptr).
enum class StreamOrder {
  Independent,        ///< non-blocking: no implicit order with the default stream
  WithDefaultStream,  ///< blocking: work queued on the default stream before is done first
};

/// An owned CUDA stream.
class RSW_API Stream {
 public:
  /// Creates a stream on the current device; throws rsw::Error without a usable device.
  explicit Stream(StreamOrder order = StreamOrder::Independent);
  ~Stream();
  /// Takes over `other`'s stream and leaves `other` without one (handle() nullptr).
  Stream(Stream&& other) noexcept;
  /// Destroys this object's stream, then takes over `other`'s (which then has none).
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  /// The handle to pass to kernels and copies.
  StreamHandle handle() const noexcept { return handle_; }
  /// Blocks the calling thread until all work queued on this stream has finished.
  void synchronize() const;

 private:
  StreamHandle handle_ = nullptr;
};

/// Blocks until all work queued on `stream` has finished.
RSW_API void synchronize(StreamHandle stream);

/// Orders `consumer` after `producer` without blocking the host: work queued on `consumer`
/// after this call starts once the work queued on `producer` before it has finished (an event
/// recorded on `producer` and waited for on `consumer`). Nothing to do when they are the same.
RSW_API void order_after(StreamHandle consumer, StreamHandle producer);

}  // namespace rsw
