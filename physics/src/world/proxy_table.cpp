#include "proxy_table.hpp"

#include <string>

#include "../broad_phase/host_boxes.hpp"
#include "rsw/engine/error.hpp"
#include "static_cells.hpp"

namespace rsw::physics::detail {
namespace {

bool has_default_filters(std::uint32_t category, std::uint32_t mask, std::uint32_t world) {
  const ProxyOptions defaults;
  return category == defaults.category && mask == defaults.mask && world == defaults.world;
}

// A slot's first generation: the world's seed and the slot mixed (splitmix64's finalizer),
// never 0.
std::uint32_t first_generation(std::uint32_t seed, std::uint32_t slot) {
  std::uint64_t z = (std::uint64_t{seed} << 32 | slot) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  const auto generation = static_cast<std::uint32_t>(z ^ (z >> 31));
  return generation != 0 ? generation : 1;
}

}  // namespace

void ProxyTable::reserve(std::size_t count, Motion motion) {
  const std::size_t fresh = count > free_.size() ? count - free_.size() : 0;
  if (states_.size() + fresh > 0xFFFFFFFFu) {
    throw Error(ErrorKind::OutOfMemory, "World::create: 2^32 - 1 proxies, more than ids reach");
  }
  const std::size_t size = states_.size() + fresh;
  reserve_geometric(boxes, size);
  reserve_geometric(generations_, size);
  reserve_geometric(categories_, size);
  reserve_geometric(masks_, size);
  reserve_geometric(worlds_, size);
  reserve_geometric(users_, size);
  reserve_geometric(states_, size);
  reserve_geometric(positions_, size);
  std::vector<std::uint32_t>& list = motion == Motion::Static ? statics_ : moving_;
  reserve_geometric(list, list.size() + count);
}

std::uint32_t ProxyTable::allocate(const ProxyOptions& options) {
  std::uint32_t slot = 0;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    if (++generations_[slot] == 0) generations_[slot] = 1;
  } else {
    reserve(1, options.motion);  // nothing if the caller reserved
    slot = static_cast<std::uint32_t>(states_.size());
    boxes.emplace_back();
    generations_.push_back(first_generation(seed_, slot));
    categories_.push_back(0);
    masks_.push_back(0);
    worlds_.push_back(0);
    users_.push_back(0);
    states_.push_back(SlotState::Free);
    positions_.push_back(0);
  }
  const SlotState state = options.motion == Motion::Static ? SlotState::Static : SlotState::Moving;
  std::vector<std::uint32_t>& list = list_of(state);
  reserve_geometric(list, list.size() + 1);  // nothing if the caller reserved
  list.push_back(slot);
  states_[slot] = state;
  positions_[slot] = static_cast<std::uint32_t>(list.size() - 1);
  categories_[slot] = options.category;
  masks_[slot] = options.mask;
  worlds_[slot] = options.world;
  users_[slot] = options.user;
  if (!has_default_filters(options.category, options.mask, options.world)) ++filtered_;
  return slot;
}

void ProxyTable::release(std::uint32_t slot) {
  std::vector<std::uint32_t>& list = list_of(states_[slot]);
  const std::uint32_t position = positions_[slot];
  list[position] = list.back();
  positions_[list[position]] = position;
  list.pop_back();
  states_[slot] = SlotState::Free;
  if (!has_default_filters(categories_[slot], masks_[slot], worlds_[slot])) --filtered_;
  categories_[slot] = 0;
  released_.push_back(slot);
}

void ProxyTable::stepped() noexcept {
  free_.insert(free_.end(), reported_.begin(), reported_.end());
  reported_.swap(released_);
  released_.clear();
}

bool ProxyTable::contains(ProxyId id) const noexcept {
  return id.index < states_.size() && states_[id.index] != SlotState::Free &&
         generations_[id.index] == id.generation;
}

Error ProxyTable::invalid_box_error(std::uint32_t slot, const Aabb& box) const {
  float low[3];
  float high[3];
  corners(box, low, high);
  std::string message = describe_invalid_box(slot, low, high);
  message.replace(0, 3, "proxy");  // "box 7 has ..." -> "proxy 7 has ..."
  return Error(ErrorKind::InvalidArgument, "World::step: " + message + " (generation " +
                                               std::to_string(generations_[slot]) + ")");
}

std::uint32_t ProxyTable::slot_of(ProxyId id, std::string_view what) const {
  if (!contains(id)) {
    throw Error(ErrorKind::InvalidArgument,
                std::string(what) + ": proxy id (index " + std::to_string(id.index) +
                    ", generation " + std::to_string(id.generation) +
                    ") names no live proxy of this world (destroyed, or of another world)");
  }
  return id.index;
}

}  // namespace rsw::physics::detail
