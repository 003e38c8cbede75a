// The worlds scene: many small worlds stepped side by side, as a robot-learning stack steps
// thousands of copies of one environment: in each, six chairs are dropped onto the ground,
// turned at random, and tumble into each other. Every world lies in the same region of space;
// the broad phase keeps them apart by the worlds' ids (FilterArrays::worlds), so a chair
// meets only the chairs of its own world, and one frame serves them all. The worlds are drawn
// in a square grid of tiles, each on a pad of its own.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "chair_scene_base.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "scene_registry.hpp"

namespace rsw::scenes::detail {
namespace {

constexpr std::size_t kMaxChairs = std::size_t{1} << 20;
constexpr std::uint32_t kChairsPerWorld = 6;
// Between the centres of neighbouring worlds' tiles: a chair that tumbles off its world's
// pile slides up to a few metres from the centre.
constexpr float kTilePitch = 6.0f;
constexpr float kPad = 5.6f;  // the width of a world's pad

class WorldsScene final : public ChairSceneBase {
 public:
  std::string_view name() const noexcept override { return "worlds"; }
  std::size_t default_count(Backend backend) const noexcept override {
    return kChairsPerWorld * (backend == Backend::Cuda ? 2048 : 64);
  }

  void reset(const SceneSettings& settings) override {
    if (settings.count < 1 || settings.count > kMaxChairs) {
      throw Error(ErrorKind::InvalidArgument, "worlds scene: " + std::to_string(settings.count) +
                                                  " chairs; 1 .. " + std::to_string(kMaxChairs));
    }
    start(settings, static_cast<std::uint32_t>(settings.count));
    worlds_ = (count_ + kChairsPerWorld - 1) / kChairsPerWorld;
    columns_ = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(worlds_))));
    resize_host(world_ids_, count_, "the chairs' worlds");
    for (std::uint32_t i = 0; i < count_; ++i)
      world_ids_[i] = i / kChairsPerWorld;
    std::mt19937 generator(settings.seed);
    drop(generator);
    pads_.clear();
    place();
  }

  SceneStats stats() const override {
    SceneStats stats = SceneBase::stats();
    stats.worlds = worlds_;
    return stats;
  }

  void step(StageProfiler& profiler) override {
    step_chairs(profiler, {.worlds = world_ids_}, {.worlds = device_world_ids_.span()});
  }

  render::OrbitCamera camera() const override {
    const float width = kTilePitch * static_cast<float>(columns_);
    return {.target = {0, 0, 0},
            .distance = 1.15f * width + 6.0f,
            .yaw_degrees = 30,
            .pitch_degrees = 40,
            .near_plane = 0.05f,
            .far_plane = 6 * width + 40.0f};
  }

  void draw(render::Renderer& renderer, StageProfiler& profiler) override {
    auto timer = profiler.time("render", backend(), stream());
    if (pads_.empty()) make_pads();
    renderer.draw_instances(render::Shape::Box, pads_);
    draw_chairs(renderer, field());
  }

  // Each world is drawn on its tile, moved from where the broad phase has it: a ray is cast
  // in each tile it crosses, moved back by the tile's offset and asked of that world alone,
  // nearest tile first, until the tiles (with room for chairs that strayed) lie beyond the
  // nearest hit.
  std::optional<ScenePick> pick(const render::CameraRay& ray) override {
    if (!stepped()) return std::nullopt;
    std::vector<std::pair<float, std::uint32_t>> crossed;  // (where the ray enters, world)
    for (std::uint32_t world = 0; world < worlds_; ++world) {
      if (const std::optional<float> t = enters_tile(ray, world)) crossed.emplace_back(*t, world);
    }
    std::ranges::sort(crossed);
    std::optional<ScenePick> nearest;
    for (const auto& [enter, world] : crossed) {
      if (nearest && enter > nearest->t) break;
      const physics::Ray cast = moved(to_ray(ray), world);
      const std::span<const physics::BoxRayHit> hits =
          broad_phase_.raycast(std::span(&cast, 1), {.world = world});
      if (!hits.empty() && (!nearest || hits[0].t < nearest->t))
        nearest = ScenePick{hits[0].box, hits[0].t};
    }
    return nearest;
  }

  // A region is asked of each world whose tile it reaches into, moved back by its offset.
  std::vector<std::uint32_t> objects_in(const physics::Aabb& region) override {
    check_region(region);
    std::vector<std::uint32_t> found;
    if (!stepped()) return found;
    const float reach = kTilePitch;  // a tile and half a tile around it
    for (std::uint32_t world = 0; world < worlds_; ++world) {
      float offset[2];
      tile_offset(world, columns_, kTilePitch, offset);
      if (region.max.x < offset[0] - reach || region.min.x > offset[0] + reach ||
          region.max.z < offset[1] - reach || region.min.z > offset[1] + reach) {
        continue;
      }
      physics::Aabb in_world = region;
      in_world.min.x -= offset[0];
      in_world.max.x -= offset[0];
      in_world.min.z -= offset[1];
      in_world.max.z -= offset[1];
      for (const physics::BoxQueryHit& hit :
           broad_phase_.query(std::span(&in_world, 1), {.world = world})) {
        found.push_back(hit.box);
      }
    }
    std::ranges::sort(found);
    return found;
  }

 private:
  physics::Aabb drawn(const physics::Aabb& box, std::uint32_t object) const override {
    float offset[2];
    tile_offset(world_ids_[object], columns_, kTilePitch, offset);
    return {{box.min.x + offset[0], box.min.y, box.min.z + offset[1]},
            {box.max.x + offset[0], box.max.y, box.max.z + offset[1]}};
  }

  physics::QueryOptions partner_options(std::uint32_t object) const override {
    return {.world = world_ids_[object]};
  }

  // Where `ray` enters the column over world w's tile and half a tile around it (where its
  // chairs may stray), at any height, if it does.
  std::optional<float> enters_tile(const render::CameraRay& ray, std::uint32_t world) const {
    float offset[2];
    tile_offset(world, columns_, kTilePitch, offset);
    float enter = 0;
    float leave = std::numeric_limits<float>::infinity();
    const float origin[2] = {ray.origin[0] - offset[0], ray.origin[2] - offset[1]};
    const float direction[2] = {ray.direction[0], ray.direction[2]};
    for (int axis = 0; axis < 2; ++axis) {
      const float half = kTilePitch;
      if (direction[axis] == 0.0f) {
        if (std::abs(origin[axis]) > half) return std::nullopt;
        continue;
      }
      const float near = (-half - origin[axis]) / direction[axis];
      const float far = (half - origin[axis]) / direction[axis];
      enter = std::max(enter, std::min(near, far));
      leave = std::min(leave, std::max(near, far));
    }
    if (enter > leave) return std::nullopt;
    return enter;
  }

  // `ray` moved from world w's tile to where the broad phase has the world.
  physics::Ray moved(physics::Ray ray, std::uint32_t world) const {
    float offset[2];
    tile_offset(world, columns_, kTilePitch, offset);
    ray.origin.x -= offset[0];
    ray.origin.z -= offset[1];
    return ray;
  }

  // Each world's chairs in two layers of three around the world's centre, the upper layer
  // turned a sixth of a circle from the lower, each chair shifted, turned and tipped at random.
  void drop(std::mt19937& generator) {
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    constexpr float kRadius = 0.45f;
    constexpr float kLayerHeight = 1.3f;
    const float lowest = 0.5f * kChairSize[1] + 0.3f;
    for (std::uint32_t i = 0; i < count_; ++i) {
      const std::uint32_t in_world = i % kChairsPerWorld;
      const std::uint32_t layer = in_world / 3;
      constexpr float kThird = 2.0f * std::numbers::pi_v<float> / 3.0f;
      const float angle =
          kThird * (static_cast<float>(in_world % 3) + 0.5f * static_cast<float>(layer));
      const float jitter = 0.15f;
      const float position[3] = {
          kRadius * std::cos(angle) + jitter * (unit(generator) - 0.5f),
          lowest + kLayerHeight * static_cast<float>(layer) + 0.4f * unit(generator),
          kRadius * std::sin(angle) + jitter * (unit(generator) - 0.5f)};
      place_chair(i, position, dropped_orientation(generator));
    }
  }

  // A thin pad under each world's tile, in two shades like a board.
  void make_pads() {
    pads_.resize(worlds_);
    for (std::uint32_t w = 0; w < worlds_; ++w) {
      float offset[2];
      tile_offset(w, columns_, kTilePitch, offset);
      const bool light = (w % columns_ + w / columns_) % 2 == 0;
      const float shade = light ? 0.52f : 0.42f;
      render::BoxInstance& pad = pads_[w];
      pad.centre[0] = offset[0];
      pad.centre[1] = -0.02f;
      pad.centre[2] = offset[1];
      pad.size[0] = kPad;
      pad.size[1] = 0.04f;
      pad.size[2] = kPad;
      pad.colour[0] = shade;
      pad.colour[1] = shade;
      pad.colour[2] = shade * 0.95f;
    }
  }

  ChairField field() {
    ChairField view = chair_field();
    view.per_tile = kChairsPerWorld;
    view.tile_columns = columns_;
    view.tile_pitch = kTilePitch;
    return view;
  }

  void upload_rest() override {
    ChairSceneBase::upload_rest();
    device_world_ids_.upload(world_ids_, stream());
  }

  std::uint32_t worlds_ = 1;
  std::uint32_t columns_ = 1;
  std::vector<std::uint32_t> world_ids_;  // chair i is in world i / kChairsPerWorld
  DeviceBuffer<std::uint32_t> device_world_ids_;
  std::vector<render::BoxInstance> pads_;
};

}  // namespace

std::unique_ptr<Scene> make_worlds_scene() {
  return std::make_unique<WorldsScene>();
}

}  // namespace rsw::scenes::detail
