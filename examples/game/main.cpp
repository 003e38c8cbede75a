// Bouncing boxes: a few hundred boxes fly around a room, and each frame the broad phase says
// which of them overlap. Two uses of RadixSweep::physics from a game: a BroadPhase (all boxes
// in, all pairs out: update(), find_pairs()), and a World that keeps the boxes as moving
// proxies and the room's six walls as static ones, and prints the contacts that begin and end
// each frame (events()). At the end a shot (raycast()) and an explosion (query()) are asked of
// both. Exits with status 1 if a frame's pairs or contacts, or the shot's or the explosion's
// hits, differ from a brute-force check (the library's own oracle backend). Built with
// RadixSweep::render, it also draws the last frame into bouncing-boxes.png (overlapping boxes in
// red).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <rsw/physics/broad_phase.hpp>
#include <rsw/physics/world.hpp>

#if GAME_HAS_RENDERER
#include <rsw/engine/error.hpp>
#include <rsw/render/headless_context.hpp>
#include <rsw/render/renderer.hpp>
#endif

namespace {

using rsw::physics::Aabb;
using rsw::physics::BroadPhase;
using rsw::physics::Pair;
using rsw::physics::ProxyId;
using rsw::physics::ProxyPair;
using rsw::physics::World;

constexpr int kBoxes = 300;
constexpr int kFrames = 10;
constexpr float kRoom = 20.0f;  // the room is [0, kRoom) on every axis
constexpr float kStep = 1.0f / 60.0f;

struct Body {
  float position[3];  // the box's minimum corner
  float velocity[3];
  float size;
};

Aabb box_of(const Body& body) {
  const float* p = body.position;
  return {{p[0], p[1], p[2]}, {p[0] + body.size, p[1] + body.size, p[2] + body.size}};
}

// The room's walls, 1 thick, just outside [0, kRoom): a box that bounces touches one.
constexpr int kWalls = 6;
const char* const kWallNames[kWalls] = {"floor",     "ceiling",    "west wall",
                                        "east wall", "north wall", "south wall"};
Aabb wall(int w) {
  const float low = -1;
  const float high = kRoom + 1;
  switch (w) {
    case 0: return {{low, low, low}, {high, 0, high}};
    case 1: return {{low, kRoom, low}, {high, high, high}};
    case 2: return {{low, low, low}, {0, high, high}};
    case 3: return {{kRoom, low, low}, {high, high, high}};
    case 4: return {{low, low, low}, {high, high, 0}};
    default: return {{low, low, kRoom}, {high, high, high}};
  }
}

// A proxy's user value: its body's index, or kRoomWall + the wall's.
constexpr std::uint64_t kRoomWall = 1000000;

std::string name_of(std::uint64_t user) {
  if (user >= kRoomWall) return kWallNames[user - kRoomWall];
  return "box " + std::to_string(user);
}

// Body pairs as the World reports them, by body index, sorted (the walls' pairs left out).
std::vector<Pair> body_pairs(World& world, std::span<const ProxyPair> pairs) {
  std::vector<Pair> out;
  for (const ProxyPair& p : pairs) {
    const std::uint64_t a = world.user(p.a);
    const std::uint64_t b = world.user(p.b);
    if (a >= kRoomWall || b >= kRoomWall) continue;
    out.push_back(
        {static_cast<std::uint32_t>(std::min(a, b)), static_cast<std::uint32_t>(std::max(a, b))});
  }
  std::ranges::sort(out);
  return out;
}

// Prints up to six contacts of a frame's events.
void print_contacts(World& world, const char* what, std::span<const ProxyPair> pairs) {
  std::printf("  %s %zu:", what, pairs.size());
  for (std::size_t k = 0; k < pairs.size() && k < 6; ++k) {
    std::printf(" %s/%s%s", name_of(world.user(pairs[k].a)).c_str(),
                name_of(world.user(pairs[k].b)).c_str(), k + 1 < pairs.size() ? "," : "");
  }
  std::printf("%s\n", pairs.size() > 6 ? " ..." : "");
}

// Moves every body one step, bouncing off the walls.
void move(std::vector<Body>& bodies) {
  for (Body& body : bodies) {
    for (int axis = 0; axis < 3; ++axis) {
      float& x = body.position[axis];
      float& v = body.velocity[axis];
      x += v * kStep;
      if (x < 0 || x + body.size > kRoom) {
        v = -v;
        x = x < 0 ? 0 : kRoom - body.size;
      }
    }
  }
}

#if GAME_HAS_RENDERER
// Draws the boxes, those in some pair red and the rest grey, into bouncing-boxes.png.
void save_picture(const std::vector<Aabb>& boxes, std::span<const Pair> pairs) {
  std::vector<rsw::render::BoxInstance> instances(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const Aabb& box = boxes[i];
    rsw::render::BoxInstance& instance = instances[i];
    instance.centre[0] = (box.min.x + box.max.x) / 2;
    instance.centre[1] = (box.min.y + box.max.y) / 2;
    instance.centre[2] = (box.min.z + box.max.z) / 2;
    instance.size[0] = box.max.x - box.min.x;
    instance.size[1] = box.max.y - box.min.y;
    instance.size[2] = box.max.z - box.min.z;
  }
  for (const Pair& pair : pairs) {
    for (const std::uint32_t box : {pair.a, pair.b}) {
      float* colour = instances[box].colour;
      colour[0] = 0.9f;
      colour[1] = 0.2f;
      colour[2] = 0.15f;
    }
  }
  try {
    rsw::render::HeadlessContext context;
    rsw::render::Renderer renderer({.width = 640, .height = 480});
    const float middle = kRoom / 2;
    renderer.draw_boxes(instances, {.target = {middle, middle, middle},
                                    .distance = 2.2f * kRoom,
                                    .yaw_degrees = 35,
                                    .pitch_degrees = 25});
    renderer.save_png("bouncing-boxes.png");
    std::printf("picture of the last frame: bouncing-boxes.png (%s)\n",
                context.description().c_str());
  } catch (const rsw::Error& error) {
    std::printf("no picture: %s\n", error.what());  // no OpenGL here: the game goes on
  }
}
#endif

}  // namespace

int main() try {
  std::mt19937 random(2026);
  std::uniform_real_distribution<float> place(0.0f, kRoom - 2.0f);
  std::uniform_real_distribution<float> speed(-8.0f, 8.0f);
  std::uniform_real_distribution<float> size(0.5f, 2.0f);
  std::vector<Body> bodies(kBoxes);
  for (Body& body : bodies) {
    body = {{place(random), place(random), place(random)},
            {speed(random), speed(random), speed(random)},
            size(random)};
  }

  BroadPhase broad_phase({.backend = rsw::Backend::Auto, .sorted_pairs = true});
  BroadPhase brute_force({.backend = rsw::Backend::Cpu, .brute_force = true, .sorted_pairs = true});
  std::vector<Aabb> boxes(kBoxes);

  // The same bodies in a World, each proxy's user value its index; the walls static.
  // Contacts printed in (a, b) order, the same on every backend and run.
  World world({.backend = rsw::Backend::Auto, .sorted_events = true});
  for (int w = 0; w < kWalls; ++w) {
    world.create(wall(w), {.motion = rsw::physics::Motion::Static, .user = kRoomWall + w});
  }
  std::vector<ProxyId> proxies(kBoxes);
  for (int i = 0; i < kBoxes; ++i) {
    proxies[i] = world.create(box_of(bodies[i]), {.user = static_cast<std::uint64_t>(i)});
  }
  world.step();
  std::vector<Pair> last_pairs = body_pairs(world, world.pairs());

  for (int frame = 0; frame < kFrames; ++frame) {
    move(bodies);
    for (int i = 0; i < kBoxes; ++i)
      boxes[i] = box_of(bodies[i]);

    broad_phase.update(boxes);
    const std::span<const Pair> pairs = broad_phase.find_pairs();
    std::printf("frame %d: %zu pairs (%s backend):", frame, pairs.size(),
                rsw::to_string(broad_phase.stats().backend).data());
    for (std::size_t k = 0; k < pairs.size() && k < 6; ++k) {
      std::printf(" %u-%u", pairs[k].a, pairs[k].b);
    }
    std::printf("%s\n", pairs.size() > 6 ? " ..." : "");

    brute_force.update(boxes);
    const std::span<const Pair> expected = brute_force.find_pairs();
    if (!std::equal(pairs.begin(), pairs.end(), expected.begin(), expected.end())) {
      std::printf("frame %d: the pairs differ from brute force (%zu pairs)\n", frame,
                  expected.size());
      return 1;
    }

    world.move(proxies, boxes);
    world.step();
    const rsw::physics::WorldEvents events = world.events();
    print_contacts(world, "begin", events.found);
    print_contacts(world, "end", events.lost);
    // The World's body pairs are the broad phase's, and its events their difference.
    const std::vector<Pair> now(expected.begin(), expected.end());
    std::vector<Pair> begun;
    std::vector<Pair> ended;
    std::ranges::set_difference(now, last_pairs, std::back_inserter(begun));
    std::ranges::set_difference(last_pairs, now, std::back_inserter(ended));
    if (body_pairs(world, world.pairs()) != now || body_pairs(world, events.found) != begun ||
        body_pairs(world, events.lost) != ended) {
      std::printf("frame %d: the world's pairs or contacts differ from brute force\n", frame);
      return 1;
    }
    last_pairs = now;
  }
  std::printf("all %d frames agree with brute force\n", kFrames);

  // A shot from the floor and an explosion in the middle of the room, asked of the last
  // frame: of the World (walls included), of the broad phase (box indices), and of brute force.
  const float middle = kRoom / 2;
  const rsw::physics::Ray shot{{middle, 0.5f, middle}, {0.3f, 1.0f, 0.2f}};
  const rsw::physics::RayHit hit = world.raycast(std::span(&shot, 1)).front();  // a wall at worst
  const std::span<const rsw::physics::BoxRayHit> box_hit = broad_phase.raycast(std::span(&shot, 1));
  const std::span<const rsw::physics::BoxRayHit> expected_hit =
      brute_force.raycast(std::span(&shot, 1));
  const std::uint64_t shot_user = world.user(hit.proxy);
  const bool shot_agrees =
      box_hit.size() == expected_hit.size() &&
      (box_hit.empty() ||
       (box_hit[0].box == expected_hit[0].box && box_hit[0].t == expected_hit[0].t)) &&
      (shot_user >= kRoomWall
           ? box_hit.empty() || box_hit[0].t > hit.t
           : !box_hit.empty() && box_hit[0].box == shot_user && box_hit[0].t == hit.t);
  std::printf("a shot from the floor hits %s%s at t = %.3f\n", shot_user >= kRoomWall ? "the " : "",
              name_of(shot_user).c_str(), hit.t);

  const Aabb blast{{middle - 3, middle - 3, middle - 3}, {middle + 3, middle + 3, middle + 3}};
  std::vector<std::uint32_t> reached;
  for (const rsw::physics::QueryHit& proxy : world.query(std::span(&blast, 1)))
    reached.push_back(static_cast<std::uint32_t>(world.user(proxy.proxy)));
  std::ranges::sort(reached);
  std::vector<std::uint32_t> boxes_reached;
  for (const rsw::physics::BoxQueryHit& box : broad_phase.query(std::span(&blast, 1)))
    boxes_reached.push_back(box.box);
  std::vector<std::uint32_t> expected_reached;
  for (const rsw::physics::BoxQueryHit& box : brute_force.query(std::span(&blast, 1)))
    expected_reached.push_back(box.box);
  std::printf("an explosion in the middle reaches %zu boxes:", reached.size());
  for (std::size_t k = 0; k < reached.size() && k < 6; ++k)
    std::printf(" %u%s", reached[k], k + 1 < reached.size() ? "," : "");
  std::printf("%s\n", reached.size() > 6 ? " ..." : "");
  if (!shot_agrees || reached != boxes_reached || boxes_reached != expected_reached) {
    std::printf(
        "the shot or the explosion differs between the World, the broad phase and brute "
        "force\n");
    return 1;
  }
#if GAME_HAS_RENDERER
  save_picture(boxes, broad_phase.find_pairs());
#endif
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "bouncing-boxes: %s\n", error.what());
  return 1;
}
