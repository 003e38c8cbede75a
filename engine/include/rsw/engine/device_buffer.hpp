// DeviceBuffer<T> (GPU memory) and PinnedBuffer<T> (page-locked host memory): RAII, move-only.
//
// Both hold trivially copyable elements and never construct or destroy them. Allocation,
// copies and frees go through the functions in rsw::detail, defined next to the CUDA runtime
// (or, in a CPU-only build, as functions that throw rsw::Error(DeviceUnavailable)), so this
// header needs no CUDA header.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw {

/// A typed view of device memory: a pointer a kernel may use and an element count. The host
/// must not dereference it.
template <class T>
struct DeviceSpan {
  T* data = nullptr;     ///< the first element, in device memory
  std::size_t size = 0;  ///< elements, not bytes

  /// True when size is 0.
  bool empty() const noexcept { return size == 0; }
  /// size * sizeof(T).
  std::size_t size_bytes() const noexcept { return size * sizeof(T); }
  /// DeviceSpan<T> -> DeviceSpan<const T> (a template, so no const-to-const conversion exists).
  template <class Const>
  requires(std::is_same_v<Const, const T> && !std::is_const_v<T>) operator DeviceSpan<Const>()
      const noexcept {
    return {data, size};
  }
};

namespace detail {

/// cudaMalloc with the error naming the request, the free and total device memory.
RSW_API void* device_allocate(std::size_t bytes);
RSW_API void device_free(void* pointer) noexcept;
/// cudaMallocHost; returns nullptr when page-locked memory cannot be had (no driver).
RSW_API void* pinned_allocate(std::size_t bytes);
RSW_API void pinned_free(void* pointer) noexcept;
RSW_API void copy_host_to_device(void* device, const void* host, std::size_t bytes,
                                 StreamHandle stream);
RSW_API void copy_device_to_host(void* host, const void* device, std::size_t bytes,
                                 StreamHandle stream);
RSW_API void copy_device_to_device(void* target, const void* source, std::size_t bytes,
                                   StreamHandle stream);
RSW_API void fill_bytes_zero(void* device, std::size_t bytes, StreamHandle stream);
/// Copies a few bytes between device memory and page-locked host memory (a PinnedBuffer that
/// is_pinned(): kernels address it directly), either way, with one warp of a kernel queued on
/// `stream`. Between kernels this costs a stream less than a copy: a copy switches it to a
/// copy engine and back, about 5 us each way on an H100.
RSW_API void copy_small_by_kernel(void* target, const void* source, std::size_t bytes,
                                  StreamHandle stream);
/// count * element_size, or rsw::Error(InvalidArgument) when that overflows size_t.
RSW_API std::size_t checked_bytes(std::size_t count, std::size_t element_size);
[[noreturn]] RSW_API void throw_download_too_large(std::size_t wanted, std::size_t held);
[[noreturn]] RSW_API void throw_copy_target_too_small(std::size_t wanted, std::size_t held);
/// The capacity to grow to when `wanted` elements do not fit in `capacity`: at least 1.5x.
RSW_API std::size_t grown_capacity(std::size_t capacity, std::size_t wanted) noexcept;

}  // namespace detail

/// Device memory for `size()` elements of T, with room for `capacity()`. Growing keeps the
/// contents unless the call says otherwise. Copies are asynchronous on the given stream
/// (nullptr: the default stream) except where a function returns host data.
template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds trivially copyable types");

 public:
  DeviceBuffer() = default;
  /// `count` uninitialised elements.
  explicit DeviceBuffer(std::size_t count) { resize_discarding(count); }
  /// A device copy of `host`, made on `stream`.
  explicit DeviceBuffer(std::span<const T> host, StreamHandle stream = nullptr) {
    upload(host, stream);
  }
  ~DeviceBuffer() { detail::device_free(data_); }

  /// Takes over `other`'s memory and leaves `other` empty, with capacity 0.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  /// Frees this buffer's memory, then takes over `other`'s and leaves `other` empty.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      detail::device_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// The first element, in device memory (the host must not dereference it); nullptr while
  /// no memory is held.
  ///@{
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  ///@}
  /// Elements held.
  std::size_t size() const noexcept { return size_; }
  /// Elements that fit in the memory held, without reallocating.
  std::size_t capacity() const noexcept { return capacity_; }
  /// size() * sizeof(T).
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  /// True when size() is 0; the buffer may still hold memory.
  bool empty() const noexcept { return size_ == 0; }
  /// The contents as a DeviceSpan for kernels and copy(); invalid once the buffer reallocates.
  ///@{
  DeviceSpan<T> span() noexcept { return {data_, size_}; }
  DeviceSpan<const T> span() const noexcept { return {data_, size_}; }
  ///@}

  /// Makes room for `count` elements, keeping the contents (a device copy on `stream`).
  void reserve(std::size_t count, StreamHandle stream = nullptr) {
    if (count > capacity_) reallocate(count, size_, stream);
  }
  /// Sets the size to `count`, keeping the first min(size, count) elements; new ones are
  /// uninitialised. Grows the capacity geometrically.
  void resize(std::size_t count, StreamHandle stream = nullptr) {
    if (count > capacity_) reallocate(detail::grown_capacity(capacity_, count), size_, stream);
    size_ = count;
  }
  /// Sets the size to `count` without keeping anything: for buffers that are about to be
  /// overwritten (temp storage, a pair buffer that grows before the sweep runs again).
  void resize_discarding(std::size_t count) {
    if (count > capacity_) reallocate(detail::grown_capacity(capacity_, count), 0, nullptr);
    size_ = count;
  }
  /// Size 0; the memory stays for reuse.
  void clear() noexcept { size_ = 0; }
  /// Frees the memory.
  void release() noexcept {
    detail::device_free(std::exchange(data_, nullptr));
    size_ = capacity_ = 0;
  }

  /// Replaces the contents with a copy of `host` (resizing to host.size()).
  void upload(std::span<const T> host, StreamHandle stream = nullptr) {
    resize_discarding(host.size());
    detail::copy_host_to_device(data_, host.data(), size_bytes(), stream);
  }
  /// Copies the first host.size() elements to `host` (host.size() <= size()), then waits for
  /// the stream so the data is there on return.
  void download(std::span<T> host, StreamHandle stream = nullptr) const;
  /// The contents as a host vector (waits for `stream`).
  std::vector<T> to_vector(StreamHandle stream = nullptr) const {
    std::vector<T> host(size_);
    download(host, stream);
    return host;
  }
  /// Sets every byte of the contents to zero.
  void fill_zero(StreamHandle stream = nullptr) {
    detail::fill_bytes_zero(data_, size_bytes(), stream);
  }

 private:
  void reallocate(std::size_t new_capacity, std::size_t keep, StreamHandle stream) {
    T* fresh =
        static_cast<T*>(detail::device_allocate(detail::checked_bytes(new_capacity, sizeof(T))));
    if (keep > 0) detail::copy_device_to_device(fresh, data_, keep * sizeof(T), stream);
    // cudaFree waits for the device, so the copy above has read the old memory by then.
    detail::device_free(data_);
    data_ = fresh;
    capacity_ = new_capacity;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// Host memory for staging transfers: page-locked when the CUDA driver can provide it (so
/// copies are truly asynchronous), ordinary heap memory otherwise (CPU backend, no driver).
template <class T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "PinnedBuffer holds trivially copyable types");

 public:
  PinnedBuffer() = default;
  /// `count` uninitialised elements.
  explicit PinnedBuffer(std::size_t count) { resize_discarding(count); }
  ~PinnedBuffer() { release(); }

  /// Takes over `other`'s memory and leaves `other` empty, with capacity 0.
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)),
        pinned_(std::exchange(other.pinned_, false)) {}
  /// Frees this buffer's memory, then takes over `other`'s and leaves `other` empty.
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
      pinned_ = std::exchange(other.pinned_, false);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  /// The first element (host memory, aligned to 256 bytes); nullptr while no memory is held.
  ///@{
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  ///@}
  /// Elements held.
  std::size_t size() const noexcept { return size_; }
  /// Elements that fit in the memory held, without reallocating.
  std::size_t capacity() const noexcept { return capacity_; }
  /// True when size() is 0; the buffer may still hold memory.
  bool empty() const noexcept { return size_ == 0; }
  /// True when the memory is page-locked (CUDA driver present).
  bool is_pinned() const noexcept { return pinned_; }
  /// The contents as a span; invalid once the buffer reallocates.
  ///@{
  std::span<T> span() noexcept { return {data_, size_}; }
  std::span<const T> span() const noexcept { return {data_, size_}; }
  ///@}
  /// Element `index`, unchecked: `index` must be below size().
  ///@{
  T& operator[](std::size_t index) noexcept { return data_[index]; }
  const T& operator[](std::size_t index) const noexcept { return data_[index]; }
  ///@}

  /// Sets the size to `count`. Memory is allocated (page-locking is slow) only when `count`
  /// exceeds the capacity, then geometrically; the contents are not kept across that.
  void resize_discarding(std::size_t count) {
    if (count > capacity_) {
      release();
      allocate(detail::grown_capacity(capacity_, count));
    }
    size_ = count;
  }
  /// Fills the first `count` elements from device memory, queued on `stream`: by one warp of
  /// a kernel when the memory is pinned (copy_small_by_kernel: cheaper between kernels), by a
  /// copy when it is not. For the few bytes a frame reads back, such as counters.
  void copy_small_from_device(const T* device, std::size_t count, StreamHandle stream) {
    if (count > size_) detail::throw_copy_target_too_small(count, size_);
    if (pinned_) {
      detail::copy_small_by_kernel(data_, device, count * sizeof(T), stream);
    } else {
      detail::copy_device_to_host(data_, device, count * sizeof(T), stream);
    }
  }
  /// Frees the memory.
  void release() noexcept {
    if (data_ != nullptr) {
      if (pinned_) {
        detail::pinned_free(data_);
      } else {
        ::operator delete (data_, std::align_val_t{kAlignment});
      }
    }
    data_ = nullptr;
    size_ = capacity_ = 0;
    pinned_ = false;
  }

 private:
  void allocate(std::size_t capacity) {
    if (capacity == 0) return;
    const std::size_t bytes = detail::checked_bytes(capacity, sizeof(T));
    void* memory = detail::pinned_allocate(bytes);
    pinned_ = memory != nullptr;
    if (!pinned_) memory = ::operator new (bytes, std::align_val_t{kAlignment});
    data_ = static_cast<T*>(memory);
    capacity_ = capacity;
  }

  // Matches what cudaMallocHost gives, so SIMD loops see the same alignment either way.
  static constexpr std::size_t kAlignment = 256;

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  bool pinned_ = false;
};

/// Copies `source` into the front of `target` (device to device) on `stream`; throws
/// rsw::Error(InvalidArgument) when target is smaller than source.
template <class T>
void copy(std::type_identity_t<DeviceSpan<const T>> source, DeviceSpan<T> target,
          StreamHandle stream = nullptr) {
  if (target.size < source.size) detail::throw_copy_target_too_small(source.size, target.size);
  detail::copy_device_to_device(target.data, source.data, source.size_bytes(), stream);
}

template <class T>
void DeviceBuffer<T>::download(std::span<T> host, StreamHandle stream) const {
  if (host.size() > size_) detail::throw_download_too_large(host.size(), size_);
  if (host.empty()) return;
  detail::copy_device_to_host(host.data(), data_, host.size() * sizeof(T), stream);
  synchronize(stream);
}

}  // namespace rsw
