// For the World tests: a model of a world (its proxies in a map), the oracle that finds the
// model's pairs by testing every two proxies, and a random script of creates, moves and
// destroys that steps a World and holds each step's pairs, found and lost to the oracle.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "rsw/physics/world.hpp"

namespace rsw::test {

/// What the test knows of a proxy.
struct ModelProxy {
  physics::Aabb box;
  physics::ProxyOptions options;
};

/// The proxies a world should hold, and the pairs they should make.
struct WorldModel {
  std::map<physics::ProxyId, ModelProxy> proxies;
  std::vector<physics::ProxyPair> previous;  // the oracle's pairs at the last step

  static bool valid(const physics::Aabb& box) {
    const float values[6] = {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z};
    return std::ranges::all_of(values, [](float v) { return std::isfinite(v); }) &&
           box.min.x <= box.max.x && box.min.y <= box.max.y && box.min.z <= box.max.z;
  }

  /// Every two live proxies tested, static pairs left out: sorted by (a, b).
  std::vector<physics::ProxyPair> oracle_pairs() const {
    std::vector<std::pair<physics::ProxyId, const ModelProxy*>> live;
    for (const auto& [id, proxy] : proxies) {
      if (valid(proxy.box)) live.emplace_back(id, &proxy);
    }
    std::vector<physics::ProxyPair> pairs;
    for (std::size_t i = 0; i < live.size(); ++i) {
      for (std::size_t j = i + 1; j < live.size(); ++j) {
        const ModelProxy& p = *live[i].second;
        const ModelProxy& q = *live[j].second;
        if (p.options.motion == physics::Motion::Static &&
            q.options.motion == physics::Motion::Static) {
          continue;
        }
        const bool same_world = p.options.world == q.options.world ||
                                p.options.world == physics::kAllWorlds ||
                                q.options.world == physics::kAllWorlds;
        if (physics::overlaps(p.box, q.box) && same_world &&
            physics::filters_pass(p.options.category, p.options.mask, q.options.category,
                                  q.options.mask)) {
          pairs.push_back({live[i].first, live[j].first});  // the map's order: a < b
        }
      }
    }
    return pairs;
  }
};

/// The oracle of a region query: every proxy with a valid box overlapping each region whose
/// category the mask admits, in the query's world (or kAllWorlds), sorted by (query, proxy).
inline std::vector<physics::QueryHit> oracle_query(const WorldModel& model,
                                                   std::span<const physics::Aabb> regions,
                                                   const physics::QueryOptions& options) {
  std::vector<physics::QueryHit> hits;
  for (std::uint32_t q = 0; q < regions.size(); ++q) {
    for (const auto& [id, proxy] : model.proxies) {
      const std::uint32_t world = proxy.options.world;
      const bool in_world = options.world == physics::kAllWorlds || world == options.world ||
                            world == physics::kAllWorlds;
      if (WorldModel::valid(proxy.box) && physics::overlaps(regions[q], proxy.box) &&
          (proxy.options.category & options.mask) != 0 && in_world) {
        hits.push_back({q, id});
      }
    }
  }
  return hits;
}

/// Where `ray` enters `box` by the slab test as Ray documents it (float32), or nothing.
inline std::optional<float> oracle_entry(const physics::Ray& ray, const physics::Aabb& box) {
  const float origin[3] = {ray.origin.x, ray.origin.y, ray.origin.z};
  const float direction[3] = {ray.direction.x, ray.direction.y, ray.direction.z};
  const float low[3] = {box.min.x, box.min.y, box.min.z};
  const float high[3] = {box.max.x, box.max.y, box.max.z};
  float enter = 0.0f;
  float exit = ray.max_t;
  for (int axis = 0; axis < 3; ++axis) {
    if (direction[axis] == 0.0f) {
      if (origin[axis] < low[axis] || origin[axis] > high[axis]) return std::nullopt;
      continue;
    }
    const float t1 = (low[axis] - origin[axis]) / direction[axis];
    const float t2 = (high[axis] - origin[axis]) / direction[axis];
    enter = std::max(enter, std::min(t1, t2));
    exit = std::min(exit, std::max(t1, t2));
  }
  if (enter > exit) return std::nullopt;
  return enter;
}

/// The oracle of a ray query: every ray against every proxy with a valid box whose category
/// the mask admits, in the query's world (or kAllWorlds); the nearest hit of each ray (the
/// lowest id among equal t), or every hit sorted by (ray, t, proxy).
inline std::vector<physics::RayHit> oracle_raycast(const WorldModel& model,
                                                   std::span<const physics::Ray> rays,
                                                   const physics::RaycastOptions& options) {
  std::vector<physics::RayHit> hits;
  for (std::uint32_t r = 0; r < rays.size(); ++r) {
    std::vector<physics::RayHit> ray_hits;
    for (const auto& [id, proxy] : model.proxies) {
      const std::uint32_t world = proxy.options.world;
      const bool in_world = options.world == physics::kAllWorlds || world == options.world ||
                            world == physics::kAllWorlds;
      if (!WorldModel::valid(proxy.box) || (proxy.options.category & options.mask) == 0 ||
          !in_world) {
        continue;
      }
      if (const std::optional<float> t = oracle_entry(rays[r], proxy.box))
        ray_hits.push_back({r, id, *t});
    }
    std::ranges::sort(ray_hits, [](const physics::RayHit& a, const physics::RayHit& b) {
      return a.t != b.t ? a.t < b.t : a.proxy < b.proxy;
    });
    if (!options.all_hits && ray_hits.size() > 1) ray_hits.resize(1);
    hits.insert(hits.end(), ray_hits.begin(), ray_hits.end());
  }
  return hits;
}

/// Ray hits compared bit for bit (t by its bits, so that -0 is not 0).
inline bool same_hits(std::span<const physics::RayHit> a, std::span<const physics::RayHit> b) {
  return std::ranges::equal(a, b, [](const physics::RayHit& x, const physics::RayHit& y) {
    return x.ray == y.ray && x.proxy == y.proxy &&
           std::bit_cast<std::uint32_t>(x.t) == std::bit_cast<std::uint32_t>(y.t);
  });
}

/// Hits as lines for a failure's message.
inline std::string describe_hits(std::span<const physics::RayHit> hits) {
  std::string out;
  for (const physics::RayHit& hit : hits) {
    out += "ray " + std::to_string(hit.ray) + " proxy " + std::to_string(hit.proxy.index) + "/" +
           std::to_string(hit.proxy.generation) + " t " + std::to_string(hit.t) + "\n";
  }
  return out;
}

/// Asks a world one ray query (from host or device arrays), the hits in host memory.
using CastRays = std::function<std::vector<physics::RayHit>(
    physics::World&, std::span<const physics::Ray>, const physics::RaycastOptions&)>;

/// Awkward boxes and rays, every query held to the oracle (nearest and all hits; batches of 0,
/// 1 and 199 rays): an empty world first; then a huge box, flat and point boxes, boxes
/// touching at faces, edges and corners, and rays along those faces and edges, through the
/// corners, from inside, with zero components and a zero direction, of length 0 and infinite.
inline void check_awkward_rays(physics::World& world, const CastRays& cast) {
  using physics::Aabb;
  using physics::Ray;
  WorldModel model;
  const auto check = [&](std::span<const Ray> rays, const std::string& what) {
    for (const bool all : {false, true}) {
      const physics::RaycastOptions options{.all_hits = all};
      const std::vector<physics::RayHit> hits = cast(world, rays, options);
      const std::vector<physics::RayHit> expected = oracle_raycast(model, rays, options);
      ASSERT_TRUE(same_hits(hits, expected)) << what << ", all_hits " << all << "\ngot:\n"
                                             << describe_hits(hits) << "expected:\n"
                                             << describe_hits(expected);
    }
  };
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Ray> some = {{{0.5f, 0.5f, -5}, {0, 0, 1}, inf}};
  check({}, "no rays, an empty world");
  check(some, "a ray, an empty world");
  if (::testing::Test::HasFatalFailure()) return;

  const std::vector<Aabb> boxes = {
      {{-1e6f, -1e6f, -1e6f}, {1e6f, -10, 1e6f}},  // huge, under everything
      {{0, 0, 0}, {1, 1, 1}},
      {{1, 0, 0}, {2, 1, 1}},  // touches the cube at a face
      {{1, 1, 0}, {2, 2, 1}},  // and at an edge
      {{2, 2, 1}, {3, 3, 2}},  // at a corner
      {{0, 0, 3}, {1, 1, 3}},  // flat
      {{5, 5, 5}, {5, 5, 5}},  // a point
      {{0, 0, 0}, {1, 1, 1}},  // the cube again
      {{-3, 0.25f, 0.25f}, {-2, 0.75f, 0.75f}},
  };
  for (const Aabb& box : boxes)
    model.proxies[world.create(box)] = {box, {}};
  std::vector<Ray> rays;
  const float coordinates[] = {-1, 0, 0.5f, 1, 2, 3, 5};
  const float directions[] = {-1, 0, 1, 0.5f};
  const float lengths[] = {0, 1, 2.5f, inf};
  std::mt19937 generator(7);
  const auto pick = [&](std::span<const float> values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(generator)];
  };
  while (rays.size() < 199) {
    rays.push_back({{pick(coordinates), pick(coordinates), pick(coordinates)},
                    {pick(directions), pick(directions), pick(directions)},
                    pick(lengths)});
  }
  rays[0] = {{0, 0, -1}, {0, 0, 1}, inf};         // along an edge of the cube
  rays[1] = {{-1, 1, 0.5f}, {1, 0, 0}, inf};      // along a face, through the edge to the next
  rays[2] = {{-1, -1, -1}, {1, 1, 1}, inf};       // through the corners
  rays[3] = {{0.5f, 0.5f, 0.5f}, {}, 0};          // inside, no direction, length 0
  rays[4] = {{5, 5, 5}, {}, inf};                 // at the point
  rays[5] = {{0.5f, 0.5f, 10}, {0, 0, -1}, inf};  // down through the flat box to the cube
  rays[6] = {{0.5f, 0.5f, 10}, {0, 0, -1}, 7};    // to the flat box's face exactly
  rays[7] = {{0, 50, 0}, {0, -1, 0}, inf};        // to the huge box's top past the cube
  rays[8] = {{0.5f, 0.5f, 0.5f}, {1e-30f, 0, 0}, inf};    // a tiny step: t beyond the floats
  rays[9] = {{0.5f, 0.5f, -5}, {1e-40f, 0, 1}, inf};      // a subnormal component
  rays[10] = {{0.5f, 0.5f, -5}, {0, 0, 1e30f}, inf};      // a huge step
  rays[11] = {{-1e7f, 0.5f, 0.5f}, {1, 1e-8f, 0}, inf};   // from far away, along the cubes
  rays[12] = {{1e7f, 1e7f, 1e7f}, {-1, -1, -1}, inf};     // from far away, through a corner
  rays[13] = {{0.5f, 0.5f, -1e-38f}, {0, 0, 1e-38f}, 2};  // subnormal distances
  check(std::span(rays).first(1), "one ray");
  check(rays, "199 rays");
  if (::testing::Test::HasFatalFailure()) return;
  // A destroyed proxy meets nothing; a moved one is met where it is now.
  const auto first = model.proxies.begin();
  world.destroy(first->first);
  model.proxies.erase(first);
  const auto second = model.proxies.begin();
  second->second.box = {{0, 0, -2}, {1, 1, -1}};
  world.move(second->first, second->second.box);
  check(rays, "199 rays after a destroy and a move");
}

/// a \ b of two sorted pair lists.
inline std::vector<physics::ProxyPair> difference(const std::vector<physics::ProxyPair>& a,
                                                  const std::vector<physics::ProxyPair>& b) {
  std::vector<physics::ProxyPair> out;
  std::ranges::set_difference(a, b, std::back_inserter(out));
  return out;
}

inline std::vector<physics::ProxyPair> as_vector(std::span<const physics::ProxyPair> pairs) {
  return {pairs.begin(), pairs.end()};
}

/// Steps `world` and checks its pairs, found and lost against the model's oracle.
inline void step_and_check(physics::World& world, WorldModel& model, const std::string& where) {
  world.step();
  const std::vector<physics::ProxyPair> expected = model.oracle_pairs();
  const std::vector<physics::ProxyPair> pairs = as_vector(world.pairs());
  ASSERT_EQ(pairs, expected) << where;
  const physics::WorldEvents events = world.events();
  // Events are sets, in (a, b) order with sorted_events.
  std::vector<physics::ProxyPair> found = as_vector(events.found);
  std::vector<physics::ProxyPair> lost = as_vector(events.lost);
  if (world.options().sorted_events) {
    ASSERT_TRUE(std::ranges::is_sorted(found)) << where;
    ASSERT_TRUE(std::ranges::is_sorted(lost)) << where;
  }
  std::ranges::sort(found);
  std::ranges::sort(lost);
  ASSERT_EQ(found, difference(expected, model.previous)) << where;
  ASSERT_EQ(lost, difference(model.previous, expected)) << where;
  ASSERT_EQ(world.stats().pairs, expected.size()) << where;
  ASSERT_EQ(world.stats().found, events.found.size()) << where;
  ASSERT_EQ(world.stats().lost, events.lost.size()) << where;
  ASSERT_EQ(world.size(), model.proxies.size()) << where;
  model.previous = expected;
}

/// A random script of world edits: boxes on a coarse lattice (so that faces touch often) in a
/// region that keeps a few pairs a proxy, static and moving, with filter bits.
class WorldScript {
 public:
  WorldScript(std::uint32_t seed, float region) : generator_(seed), region_(region) {}

  /// From here on a third of the created proxies go to world 1, 2 or kMaxWorld, or to
  /// kAllWorlds (the rest to world 0).
  void use_worlds() { worlds_ = true; }
  /// From here on every created proxy is a moving one.
  void without_statics() { statics_ = false; }

  physics::Aabb random_box() {
    std::uniform_real_distribution<float> position(0, region_);
    std::uniform_int_distribution<int> size(1, 4);
    const auto snap = [&](float v) {  // a quarter-unit lattice: touching faces are common
      return std::bernoulli_distribution(0.5)(generator_) ? std::floor(v * 4) / 4 : v;
    };
    const physics::Vec3 low{snap(position(generator_)), snap(position(generator_)),
                            snap(position(generator_))};
    const float edge = 0.5f * static_cast<float>(size(generator_));
    return {low, {low.x + edge, low.y + edge, low.z + edge}};
  }

  physics::ProxyOptions random_options(double static_share) {
    physics::ProxyOptions options;
    options.motion = statics_ && std::bernoulli_distribution(static_share)(generator_)
                         ? physics::Motion::Static
                         : physics::Motion::Moving;
    if (std::bernoulli_distribution(0.2)(generator_)) {
      options.category = 1u << std::uniform_int_distribution<int>(0, 2)(generator_);
      options.mask = std::uniform_int_distribution<std::uint32_t>(0, 7)(generator_);
    }
    if (worlds_ && std::bernoulli_distribution(1.0 / 3)(generator_)) {
      constexpr std::uint32_t kWorlds[] = {1, 2, physics::kMaxWorld, physics::kAllWorlds};
      options.world = kWorlds[std::uniform_int_distribution<int>(0, 3)(generator_)];
    }
    options.user = generator_();
    return options;
  }

  /// `count` proxies created one batch per options draw, in the world and the model.
  void create(physics::World& world, WorldModel& model, std::size_t count, double static_share) {
    while (count > 0) {
      const std::size_t batch = std::min<std::size_t>(
          count, std::uniform_int_distribution<std::size_t>(1, 64)(generator_));
      const physics::ProxyOptions options = random_options(static_share);
      std::vector<physics::Aabb> boxes(batch);
      for (physics::Aabb& box : boxes)
        box = random_box();
      std::vector<physics::ProxyId> ids(batch);
      if (batch == 1) {
        ids[0] = world.create(boxes[0], options);
      } else {
        world.create(boxes, options, ids);
      }
      for (std::size_t i = 0; i < batch; ++i)
        model.proxies[ids[i]] = {boxes[i], options};
      count -= batch;
    }
  }

  /// Some proxies moved a little (statics only with `statics`), batched.
  void move(physics::World& world, WorldModel& model, double share, bool statics) {
    std::vector<physics::ProxyId> ids;
    std::vector<physics::Aabb> boxes;
    std::uniform_real_distribution<float> step(-0.75f, 0.75f);
    for (auto& [id, proxy] : model.proxies) {
      if (proxy.options.motion == physics::Motion::Static && !statics) continue;
      if (!std::bernoulli_distribution(share)(generator_)) continue;
      physics::Aabb box = proxy.box;
      const physics::Vec3 d{step(generator_), step(generator_), step(generator_)};
      box.min = {box.min.x + d.x, box.min.y + d.y, box.min.z + d.z};
      box.max = {box.max.x + d.x, box.max.y + d.y, box.max.z + d.z};
      if (std::bernoulli_distribution(0.1)(generator_)) box = random_box();  // a jump
      ids.push_back(id);
      boxes.push_back(box);
      proxy.box = box;
    }
    world.move(ids, boxes);
  }

  /// Each proxy destroyed with probability `share`, one call per a few.
  void destroy(physics::World& world, WorldModel& model, double share) {
    std::vector<physics::ProxyId> ids;
    for (const auto& [id, proxy] : model.proxies) {
      if (std::bernoulli_distribution(share)(generator_)) ids.push_back(id);
    }
    std::ranges::shuffle(ids, generator_);
    for (std::size_t first = 0; first < ids.size(); first += 7) {
      const std::size_t last = std::min(ids.size(), first + 7);
      if (last - first == 1) {
        world.destroy(ids[first]);
      } else {
        world.destroy(std::span(ids).subspan(first, last - first));
      }
    }
    for (const physics::ProxyId id : ids)
      model.proxies.erase(id);
  }

  /// Runs `steps` steps of random edits on `world`, checking each against the model. A step
  /// is one of: no change; moves; creates; destroys; a mass creation or destruction; the
  /// world emptied; statics moved.
  void run(physics::World& world, WorldModel& model, int steps) {
    std::uniform_int_distribution<int> kind(0, 99);
    for (int step = 0; step < steps; ++step) {
      const int roll = kind(generator_);
      if (roll < 5) {
        // no change
      } else if (roll < 50) {
        move(world, model, 0.5, false);
      } else if (roll < 65) {
        create(world, model, std::uniform_int_distribution<std::size_t>(1, 40)(generator_), 0.5);
        move(world, model, 0.2, false);
      } else if (roll < 78) {
        destroy(world, model, 0.1);
        move(world, model, 0.2, false);
      } else if (roll < 84) {
        move(world, model, 0.1, true);
      } else if (roll < 89) {
        create(world, model, std::uniform_int_distribution<std::size_t>(100, 400)(generator_), 0.8);
      } else if (roll < 94) {
        destroy(world, model, 0.6);
      } else if (roll < 96) {
        destroy(world, model, 1.0);  // emptied
      } else {
        create(world, model, 20, 0.0);
        destroy(world, model, 0.05);
        move(world, model, 0.3, true);
      }
      if (model.proxies.size() > 1200) destroy(world, model, 0.5);
      step_and_check(world, model, "step " + std::to_string(step));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  /// A round of edits between queries: a third of the moving proxies moved (statics too
  /// every fourth round), 30 created every fifth, a tenth destroyed every seventh.
  void edit_round(physics::World& world, WorldModel& model, int round) {
    move(world, model, 0.3, round % 4 == 0);
    create_and_destroy(world, model, round);
  }

  /// The round's creates and destroys (edit_round's, after its moves).
  void create_and_destroy(physics::World& world, WorldModel& model, int round) {
    if (round % 5 == 1) create(world, model, 30, 0.3);
    if (round % 7 == 2) destroy(world, model, 0.1);
  }

  /// Regions for a query: 0, 1, 13 or 200 of them, lattice boxes like the proxies' (faces
  /// touching), points on the lattice, and now and then one over everything.
  std::vector<physics::Aabb> random_regions() {
    constexpr std::size_t kCounts[] = {0, 1, 13, 200};
    std::vector<physics::Aabb> regions(
        kCounts[std::uniform_int_distribution<int>(0, 3)(generator_)]);
    for (physics::Aabb& region : regions) {
      const int kind = std::uniform_int_distribution<int>(0, 9)(generator_);
      region = random_box();
      if (kind == 0) region.max = region.min;  // a point
      if (kind == 1) region = {{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
    }
    return regions;
  }

  /// A query's options: the defaults mostly, else a mask or a world.
  physics::QueryOptions random_query_options() {
    physics::QueryOptions options;
    const int kind = std::uniform_int_distribution<int>(0, 5)(generator_);
    if (kind == 0) options.mask = 2;
    if (kind == 1) options.world = 1;
    if (kind == 2) options.world = 0;
    return options;
  }

  /// Asks a world one region query (from host or device arrays), the hits in host memory.
  using Query = std::function<std::vector<physics::QueryHit>(std::span<const physics::Aabb>,
                                                             const physics::QueryOptions&)>;

  /// A random query held to the model, then the step, then another.
  void query_step_query(physics::World& world, WorldModel& model, const Query& query) {
    for (int stepped = 0; stepped < 2; ++stepped) {
      const std::vector<physics::Aabb> regions = random_regions();
      const physics::QueryOptions options = random_query_options();
      ASSERT_EQ(query(regions, options), oracle_query(model, regions, options))
          << regions.size() << " regions, mask " << options.mask << ", world " << options.world
          << (stepped != 0 ? ", after the step" : ", before the step");
      if (stepped == 0) step_and_check(world, model, "the step");
    }
  }

  /// Rays for a query: 0, 1, 13 or 199 of them. From anywhere around the proxies in any
  /// direction, of any length (0, short, long, infinite); from a box's corner or inside it;
  /// along the lattice's planes (faces and edges) with zero direction components; a zero
  /// direction.
  std::vector<physics::Ray> random_rays(const WorldModel& model) {
    constexpr std::size_t kCounts[] = {0, 1, 13, 199};
    std::vector<physics::Ray> rays(kCounts[std::uniform_int_distribution<int>(0, 3)(generator_)]);
    std::uniform_real_distribution<float> position(-2, region_ + 2);
    std::uniform_real_distribution<float> unit(-1, 1);
    std::uniform_int_distribution<int> axis_step(-1, 1);
    std::vector<physics::Aabb> boxes;
    for (const auto& [id, proxy] : model.proxies)
      boxes.push_back(proxy.box);
    const float lengths[] = {0.0f, 0.5f, 3.0f, 2 * region_, std::numeric_limits<float>::infinity()};
    for (physics::Ray& ray : rays) {
      const int kind = std::uniform_int_distribution<int>(0, 9)(generator_);
      ray.origin = {position(generator_), position(generator_), position(generator_)};
      ray.direction = {unit(generator_), unit(generator_), unit(generator_)};
      if (!boxes.empty() && kind <= 3) {
        const physics::Aabb& box =
            boxes[std::uniform_int_distribution<std::size_t>(0, boxes.size() - 1)(generator_)];
        ray.origin = kind == 0
                         ? physics::Vec3{(box.min.x + box.max.x) / 2, (box.min.y + box.max.y) / 2,
                                         (box.min.z + box.max.z) / 2}
                         : box.min;  // inside, or on a corner
      }
      if (kind >= 3 && kind <= 6) {  // on the quarter lattice, along its planes
        const auto snap = [](float v) { return std::floor(v * 4) / 4; };
        ray.origin = {snap(ray.origin.x), snap(ray.origin.y), snap(ray.origin.z)};
        ray.direction = {static_cast<float>(axis_step(generator_)),
                         static_cast<float>(axis_step(generator_)),
                         static_cast<float>(axis_step(generator_))};
      }
      if (kind == 7) ray.direction = {};
      ray.max_t = lengths[std::uniform_int_distribution<int>(0, 4)(generator_)];
    }
    return rays;
  }

  /// A ray query's options: the nearest hit or all, the defaults mostly, else a mask or a
  /// world.
  physics::RaycastOptions random_raycast_options() {
    physics::RaycastOptions options;
    options.all_hits = std::bernoulli_distribution(0.5)(generator_);
    const int kind = std::uniform_int_distribution<int>(0, 5)(generator_);
    if (kind == 0) options.mask = 2;
    if (kind == 1) options.world = 1;
    if (kind == 2) options.world = 0;
    return options;
  }

  /// Asks a world one ray query (from host or device arrays), the hits in host memory.
  using Raycast = std::function<std::vector<physics::RayHit>(std::span<const physics::Ray>,
                                                             const physics::RaycastOptions&)>;

  /// A random ray query held to the model, then the step, then another.
  void raycast_step_raycast(physics::World& world, WorldModel& model, const Raycast& raycast) {
    for (int stepped = 0; stepped < 2; ++stepped) {
      const std::vector<physics::Ray> rays = random_rays(model);
      const physics::RaycastOptions options = random_raycast_options();
      const std::vector<physics::RayHit> hits = raycast(rays, options);
      const std::vector<physics::RayHit> expected = oracle_raycast(model, rays, options);
      ASSERT_TRUE(same_hits(hits, expected))
          << rays.size() << " rays, all_hits " << options.all_hits << ", mask " << options.mask
          << ", world " << options.world
          << (stepped != 0 ? ", after the step" : ", before the step") << "\ngot:\n"
          << describe_hits(hits) << "expected:\n"
          << describe_hits(expected);
      if (stepped == 0) step_and_check(world, model, "the step");
    }
  }

  std::mt19937& generator() { return generator_; }

 private:
  std::mt19937 generator_;
  bool worlds_ = false;
  bool statics_ = true;
  float region_;
};

}  // namespace rsw::test
