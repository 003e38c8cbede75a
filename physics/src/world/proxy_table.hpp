// A world's proxies on the host: one slot each, by index, with its generation, box, filter
// bits, user value and motion; the moving and static slots as two lists; and the slots freed
// by destroy(), which wait out two steps before they are reused (the step that reports their
// pairs lost, and the one whose events name them), so that an id in the events always names
// what it named at its step.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/physics/world.hpp"

namespace rsw::physics::detail {

/// Makes room for `size` elements, at least doubling the capacity when it grows (reserve()
/// alone would grow to the exact size, call after call).
template <class T>
void reserve_geometric(std::vector<T>& vector, std::size_t size) {
  if (vector.capacity() < size) vector.reserve(std::max(size, 2 * vector.capacity()));
}

/// What a slot holds.
enum class SlotState : std::uint8_t { Free, Moving, Static };

class ProxyTable {
 public:
  /// `seed` spreads the worlds' first generations apart, so that an id of another world is
  /// rejected (but for a chance of 2^-32 a slot).
  explicit ProxyTable(std::uint32_t seed) : seed_(seed) {}

  /// Room for `count` more proxies of `motion`, so that as many allocate() calls after it
  /// allocate no memory and cannot fail: a batch is made whole or not at all.
  void reserve(std::size_t count, Motion motion);
  /// A slot for a new proxy, with its options (the box set by the caller).
  std::uint32_t allocate(const ProxyOptions& options);
  /// Room for `count` more release() calls, which then allocate no memory and cannot fail.
  void reserve_releases(std::size_t count) {
    reserve_geometric(released_, released_.size() + count);
  }
  /// Frees a live proxy's slot (it is reused two steps later).
  void release(std::uint32_t slot);
  /// Room for stepped(), which then allocates no memory and cannot fail: called before a step.
  void prepare_step() { reserve_geometric(free_, free_.size() + reported_.size()); }
  /// A step ran: the slots it reported lost move one stage closer to reuse.
  void stepped() noexcept;

  /// The slot of `id`; throws rsw::Error(InvalidArgument) naming `what` when no live proxy of
  /// this table has this id.
  std::uint32_t slot_of(ProxyId id, std::string_view what) const;
  bool contains(ProxyId id) const noexcept;
  /// The error of a step that meets `box`, invalid, as the box of the proxy in `slot`:
  /// "World::step: proxy 7 has min > max on y (...) (generation 3)".
  Error invalid_box_error(std::uint32_t slot, const Aabb& box) const;
  ProxyId id_of(std::uint32_t slot) const noexcept { return {slot, generations_[slot]}; }

  /// Slots ever used: the size of every per-slot array.
  std::size_t slots() const noexcept { return states_.size(); }
  std::size_t live() const noexcept { return moving_.size() + statics_.size(); }
  /// Live proxies whose filter bits or world are not the defaults (category 1, every mask
  /// bit, world 0): with none, every pair passes the filter and the backends skip reading
  /// the bits.
  std::size_t filtered() const noexcept { return filtered_; }

  /// Per slot. A free slot keeps its last generation and has category 0 (it pairs with
  /// nothing).
  ///@{
  std::vector<Aabb> boxes;
  std::span<const std::uint32_t> generations() const noexcept { return generations_; }
  std::span<const std::uint32_t> categories() const noexcept { return categories_; }
  std::span<const std::uint32_t> masks() const noexcept { return masks_; }
  std::span<const std::uint32_t> worlds() const noexcept { return worlds_; }
  std::span<const SlotState> states() const noexcept { return states_; }
  std::uint64_t user(std::uint32_t slot) const noexcept { return users_[slot]; }
  ///@}
  /// The live slots by motion, in no particular order.
  std::span<const std::uint32_t> moving() const noexcept { return moving_; }
  std::span<const std::uint32_t> statics() const noexcept { return statics_; }
  /// The slots destroyed since the last step.
  std::span<const std::uint32_t> released() const noexcept { return released_; }

 private:
  std::vector<std::uint32_t>& list_of(SlotState state) {
    return state == SlotState::Static ? statics_ : moving_;
  }

  std::uint32_t seed_;
  std::vector<std::uint32_t> generations_;
  std::vector<std::uint32_t> categories_;
  std::vector<std::uint32_t> masks_;
  std::vector<std::uint32_t> worlds_;
  std::vector<std::uint64_t> users_;
  std::vector<SlotState> states_;
  std::vector<std::uint32_t> positions_;  // where a live slot stands in its motion's list
  std::vector<std::uint32_t> moving_;
  std::vector<std::uint32_t> statics_;
  std::vector<std::uint32_t> free_;      // reusable now
  std::vector<std::uint32_t> reported_;  // lost at the last step: reusable after the next
  std::vector<std::uint32_t> released_;  // destroyed since the last step
  std::size_t filtered_ = 0;
};

}  // namespace rsw::physics::detail
