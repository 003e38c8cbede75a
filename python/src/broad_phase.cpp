// radixsweep.BroadPhase, and the options' names and the stats' dicts that World shares.
#include <pybind11/pybind11.h>

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "device_arrays.hpp"
#include "queries.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::python {

rsw::Backend backend_named(const std::string& name) {
  return rsw::parse_backend(name);
}

sort::Algorithm sort_named(const std::string& name) {
  return sort::parse_algorithm(name);
}

namespace {

// The option `value` of `option` among `names`, or the error naming the choices.
template <class Enum, std::size_t kCount>
Enum named(const char* option, const std::string& value,
           const std::pair<const char*, Enum> (&names)[kCount]) {
  std::string choices;
  for (const auto& [name, choice] : names) {
    if (value == name) return choice;
    choices += (choices.empty() ? "" : ", ") + std::string(name);
  }
  throw rsw::Error(rsw::ErrorKind::InvalidArgument,
                   std::string(option) + " '" + value + "': one of " + choices);
}

}  // namespace

physics::SweepAxis axis_named(const std::string& name) {
  static const std::pair<const char*, physics::SweepAxis> kNames[] = {
      {"x", physics::SweepAxis::X},
      {"y", physics::SweepAxis::Y},
      {"z", physics::SweepAxis::Z},
      {"largest_variance", physics::SweepAxis::LargestVariance}};
  return named("axis", name, kNames);
}

physics::SweepMode mode_named(const std::string& name) {
  static const std::pair<const char*, physics::SweepMode> kNames[] = {
      {"cells", physics::SweepMode::Cells}, {"axis_sweep", physics::SweepMode::AxisSweep}};
  return named("mode", name, kNames);
}

physics::InvalidBoxes invalid_boxes_named(const std::string& name) {
  static const std::pair<const char*, physics::InvalidBoxes> kNames[] = {
      {"reject", physics::InvalidBoxes::Reject}, {"exclude", physics::InvalidBoxes::Exclude}};
  return named("invalid_boxes", name, kNames);
}

namespace {

// An integer argument (a Python int, or anything with __index__: NumPy's integers) as a
// Python int; nothing for any other type.
std::optional<py::int_> integer_of(const py::object& value) {
  if (!PyIndex_Check(value.ptr())) return std::nullopt;
  PyObject* integer = PyNumber_Index(value.ptr());
  if (integer == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::int_>(integer);
}

}  // namespace

StreamHandle stream_named(const py::object& stream) {
  if (stream.is_none()) return nullptr;
  const std::optional<py::int_> handle = integer_of(stream);
  const auto describe = [&] {
    return "stream: expected a CUDA stream as an int handle (cupy's stream.ptr, torch's "
           "stream.cuda_stream) or None, got " +
           py::repr(stream).cast<std::string>();
  };
  if (!handle) throw py::type_error(describe());
  if (*handle < py::int_(0) || *handle > py::int_(std::numeric_limits<std::uintptr_t>::max()))
    throw py::value_error(describe());
  return reinterpret_cast<StreamHandle>(handle->cast<std::uintptr_t>());
}

std::uint32_t world_named(const py::object& world) {
  if (world.is_none()) return physics::kAllWorlds;
  const std::optional<py::int_> id = integer_of(world);
  const auto describe = [&] {
    return "world: expected a world id (0 .. MAX_WORLD) or None, got " +
           py::repr(world).cast<std::string>();
  };
  if (!id) throw py::type_error(describe());
  if (*id < py::int_(0) || *id > py::int_(physics::kAllWorlds)) throw py::value_error(describe());
  return id->cast<std::uint32_t>();
}

py::dict to_dict(const physics::BroadPhaseStats& stats) {
  py::dict out;
  out["backend"] = std::string(rsw::to_string(stats.backend));
  out["boxes"] = stats.boxes;
  out["excluded_boxes"] = stats.excluded_boxes;
  out["candidates"] = stats.candidates;
  out["cells"] = stats.cells;
  out["cell_entries"] = stats.cell_entries;
  out["pairs"] = stats.pairs;
  out["sweep_axis"] = stats.sweep_axis;
  out["listing_reused"] = stats.listing_reused;
  out["sort_passes_run"] = stats.sort.passes_run;
  out["sort_passes_skipped"] = stats.sort.passes_skipped;
  out["upload_ms"] = stats.upload_ms;
  out["keys_ms"] = stats.keys_ms;
  out["sort_ms"] = stats.sort_ms;
  out["list_ms"] = stats.list_ms;
  out["sweep_ms"] = stats.sweep_ms;
  out["pair_sort_ms"] = stats.pair_sort_ms;
  out["download_ms"] = stats.download_ms;
  out["total_ms"] = stats.total_ms;
  return out;
}

py::dict to_dict(const physics::WorldStats& stats) {
  py::dict out;
  out["backend"] = std::string(rsw::to_string(stats.backend));
  out["proxies"] = stats.proxies;
  out["static_proxies"] = stats.static_proxies;
  out["moving_proxies"] = stats.moving_proxies;
  out["excluded_proxies"] = stats.excluded_proxies;
  out["candidates"] = stats.candidates;
  out["moving_pairs"] = stats.moving_pairs;
  out["static_pairs"] = stats.static_pairs;
  out["pairs"] = stats.pairs;
  out["found"] = stats.found;
  out["lost"] = stats.lost;
  out["statics_listed"] = stats.statics_listed;
  out["moving"] = to_dict(stats.moving);
  out["upload_ms"] = stats.upload_ms;
  out["statics_ms"] = stats.statics_ms;
  out["moving_ms"] = stats.moving_ms;
  out["query_ms"] = stats.query_ms;
  out["pair_sort_ms"] = stats.pair_sort_ms;
  out["events_ms"] = stats.events_ms;
  out["total_ms"] = stats.total_ms;
  return out;
}

namespace {

// A BroadPhase and the arrays of its last update (its queries read them), and when its device
// results stop being valid.
struct PyBroadPhase {
  physics::BroadPhase broad_phase;
  rsw::Backend backend;
  StreamHandle stream;  // the caller's, or nullptr: the library's own
  py::object boxes, categories, masks, worlds;
  std::vector<std::unique_ptr<DeviceInput>> device_inputs;
  Validity frame, queries, rays;
  mutable bool busy = false;  // a call is under way (InUse)

  void update(const py::object& boxes_in, const py::object& categories_in,
              const py::object& masks_in, const py::object& worlds_in) {
    const InUse in_use(busy, "BroadPhase");
    frame.advance();
    queries.advance();
    rays.advance();
    if (std::unique_ptr<DeviceInput> device_boxes = DeviceInput::of(boxes_in, "boxes", stream)) {
      update_on_device(std::move(device_boxes), categories_in, masks_in, worlds_in);
      return;
    }
    device_inputs.clear();
    const ArrayView<physics::Aabb> view = boxes_from(boxes_in, "boxes");
    const std::size_t count = view.values.size();
    const ArrayView<std::uint32_t> category = uint32_from(categories_in, "categories", count);
    const ArrayView<std::uint32_t> mask = uint32_from(masks_in, "masks", count);
    const ArrayView<std::uint32_t> world = uint32_from(worlds_in, "worlds", count);
    boxes = view.array;
    categories = category.array;
    masks = mask.array;
    worlds = world.array;
    py::gil_scoped_release unlocked;
    broad_phase.update(view.values, {category.values, mask.values, world.values});
  }

  // Boxes and filter bits in device memory, read where they lie (and kept for the queries).
  void update_on_device(std::unique_ptr<DeviceInput> boxes_in, const py::object& categories_in,
                        const py::object& masks_in, const py::object& worlds_in) {
    std::vector<std::unique_ptr<DeviceInput>> inputs;
    inputs.push_back(std::move(boxes_in));
    const auto input = [&](const py::object& object, const char* name) -> const DeviceInput* {
      if (object.is_none()) return nullptr;
      std::unique_ptr<DeviceInput> in = DeviceInput::of(object, name, stream);
      if (!in) {
        throw py::type_error(std::string(name) +
                             ": expected an array in device memory, as the boxes are");
      }
      inputs.push_back(std::move(in));
      return inputs.back().get();
    };
    const DeviceSpan<const physics::Aabb> view = device_boxes(*inputs.front(), "boxes");
    physics::DeviceFilterArrays filter;
    if (const DeviceInput* in = input(categories_in, "categories"))
      filter.categories = device_uint32(*in, "categories", view.size);
    if (const DeviceInput* in = input(masks_in, "masks"))
      filter.masks = device_uint32(*in, "masks", view.size);
    if (const DeviceInput* in = input(worlds_in, "worlds"))
      filter.worlds = device_uint32(*in, "worlds", view.size);
    device_inputs = std::move(inputs);
    boxes = categories = masks = worlds = py::none();
    py::gil_scoped_release unlocked;
    broad_phase.update(view, filter);
  }
};

}  // namespace

void bind_broad_phase(py::module_& module) {
  py::class_<PyBroadPhase>(
      module, "BroadPhase",
      R"doc(The exact set of overlapping box pairs, frame after frame, by sweep-and-prune over boxes sorted
with a radix sort, on the GPU or the CPU.

    bp = radixsweep.BroadPhase(backend="auto")
    bp.update(boxes)           # float32, (n, 6) or (n, 2, 3): min x, y, z, max x, y, z
    pairs = bp.find_pairs()    # (m, 2) uint32, a < b, each pair once

Boxes are closed: boxes that touch overlap. Each update() is one frame; the boxes are sorted
in the last frame's order, so a scene that moves a little sorts fast. No pair is ever dropped.
A box with NaN, an infinite coordinate or min > max is an InvalidArgumentError naming it
(invalid_boxes="reject"), or pairs with nothing (invalid_boxes="exclude").
)doc")
      .def(py::init([](const std::string& backend, const std::string& sort, const std::string& mode,
                       const std::string& axis, const std::string& invalid_boxes, bool sorted_pairs,
                       bool group_by_world, bool stage_times, bool brute_force,
                       const py::object& stream) {
             const rsw::Backend resolved = rsw::resolve_backend(backend_named(backend));
             const StreamHandle handle = stream_named(stream);
             return PyBroadPhase{
                 physics::BroadPhase({.backend = resolved,
                                      .brute_force = brute_force,
                                      .sort = sort_named(sort),
                                      .axis = axis_named(axis),
                                      .mode = mode_named(mode),
                                      .invalid_boxes = invalid_boxes_named(invalid_boxes),
                                      .sorted_pairs = sorted_pairs,
                                      .group_by_world = group_by_world,
                                      .stage_times = stage_times,
                                      .stream = handle}),
                 resolved, handle};
           }),
           py::kw_only(), py::arg("backend") = "auto", py::arg("sort") = "auto",
           py::arg("mode") = "cells", py::arg("axis") = "x", py::arg("invalid_boxes") = "reject",
           py::arg("sorted_pairs") = false, py::arg("group_by_world") = false,
           py::arg("stage_times") = true, py::arg("brute_force") = false,
           py::arg("stream") = py::none(),
           R"doc(backend: "auto" (the GPU when a CUDA device is usable), "cpu" or "gpu".
sort: the boxes' sort: "auto", "cpu", "fourway" or "onesweep".
mode: "cells" (sweep inside the cells of a grid over the other axes) or "axis_sweep".
axis: the sweep axis: "x", "y", "z" or "largest_variance".
invalid_boxes: "reject" (an error) or "exclude" (such a box pairs with nothing).
sorted_pairs: pairs sorted by (a, b); otherwise in the sweep's order (the set is the same).
group_by_world: pairs sorted by (world, a, b), and world_pair_offsets() says where each begins.
stage_times: time each stage for stats.
brute_force: test every pair on the CPU, O(n^2): an oracle.
stream: the CUDA stream the GPU works on, as an int handle (cupy's stream.ptr, torch's
stream.cuda_stream); None: a stream of its own, ordered with the default stream. Device
arrays are then read in that stream's order, and device results are ready in it.
)doc")
      .def(
          "update", &PyBroadPhase::update, py::arg("boxes"), py::arg("categories") = py::none(),
          py::arg("masks") = py::none(), py::arg("worlds") = py::none(),
          R"doc(One frame of `boxes` (float32, (n, 6) or (n, 2, 3)). Filter bits (uint32, one per box, or None):
boxes a and b pair only if categories[a] & masks[b] and categories[b] & masks[a] are non-zero
(defaults: category 1, mask 0xFFFFFFFF). worlds: boxes of different worlds never pair
(ALL_WORLDS pairs with every world; default: all in world 0), for many small worlds in one
frame. The arrays are read in place; query() and raycast() read them again.
)doc")
      .def(
          "find_pairs",
          [](const py::object& self_object, bool device) -> py::object {
            auto& self = self_object.cast<PyBroadPhase&>();
            const InUse in_use(self.busy, "BroadPhase");
            if (device) {
              physics::DevicePairView pairs;
              {
                py::gil_scoped_release unlocked;
                pairs = self.broad_phase.find_pairs_device();
              }
              return device_result(pairs.data, {static_cast<std::int64_t>(pairs.size), 2}, 'u', 4,
                                   self_object, self.frame, "the BroadPhase's next update()",
                                   self.stream);
            }
            physics::PairView pairs;
            {
              py::gil_scoped_release unlocked;
              pairs = self.broad_phase.find_pairs();
            }
            return pairs_to_numpy(pairs);
          },
          py::kw_only(), py::arg("device") = false,
          "The last frame's pairs: (m, 2) uint32 box indices, a < b, each pair once (a new "
          "array); with device=True a DeviceArray over the library's device buffer, valid until "
          "the next update().")
      .def(
          "world_pair_offsets",
          [](const py::object& self_object, bool device) -> py::object {
            auto& self = self_object.cast<PyBroadPhase&>();
            const InUse in_use(self.busy, "BroadPhase");
            if (device) {
              const DeviceSpan<const std::uint32_t> offsets =
                  self.broad_phase.world_pair_offsets_device();
              return device_result(offsets.data, {static_cast<std::int64_t>(offsets.size)}, 'u', 4,
                                   self_object, self.frame, "the BroadPhase's next update()",
                                   self.stream);
            }
            return records_to_numpy(self.broad_phase.world_pair_offsets());
          },
          py::kw_only(), py::arg("device") = false,
          R"doc(With group_by_world: where each world's pairs begin in find_pairs(): world w's pairs are
pairs[offsets[w]:offsets[w + 1]], one entry per world id up to the largest, and one more.
Empty otherwise. device=True: a DeviceArray, valid until the next update().
)doc")
      .def(
          "query",
          [](const py::object& self_object, const py::object& regions, std::uint32_t mask,
             const py::object& world) -> py::object {
            auto& self = self_object.cast<PyBroadPhase&>();
            const InUse in_use(self.busy, "BroadPhase");
            const physics::QueryOptions options{.mask = mask, .world = world_named(world)};
            return answer_query<physics::Aabb>(
                self_object, self.stream, self.queries, "the BroadPhase's next query() or update()",
                regions, "regions",
                [&](auto view) { return self.broad_phase.query(view, options); });
          },
          py::arg("regions"), py::kw_only(), py::arg("mask") = 0xFFFFFFFFu,
          py::arg("world") = py::none(),
          R"doc(Every box of the last frame overlapping each region (float32, as boxes), whose category & mask
is non-zero and, with `world`, in that world (or ALL_WORLDS): box_query_hit_dtype records
(query, box), sorted by (query, box). Regions in device memory give a DeviceArray of (k, 2)
uint32 (query, box), valid until the next query() or update().
)doc")
      .def(
          "raycast",
          [](const py::object& self_object, const py::object& rays, bool all_hits,
             std::uint32_t mask, const py::object& world) -> py::object {
            auto& self = self_object.cast<PyBroadPhase&>();
            const InUse in_use(self.busy, "BroadPhase");
            const physics::RaycastOptions options{
                .all_hits = all_hits, .mask = mask, .world = world_named(world)};
            return answer_query<physics::Ray>(
                self_object, self.stream, self.rays, "the BroadPhase's next raycast() or update()",
                rays, "rays", [&](auto view) { return self.broad_phase.raycast(view, options); });
          },
          py::arg("rays"), py::kw_only(), py::arg("all_hits") = false,
          py::arg("mask") = 0xFFFFFFFFu, py::arg("world") = py::none(),
          R"doc(The box each ray (float32, (n, 7): origin, direction, max_t; or (n, 6) without an end) enters
first within [0, max_t], the lowest index among boxes entered at the same t; a ray starting
inside a box hits it at t = 0. With all_hits, every box along each ray, sorted by (ray, t, box).
box_ray_hit_dtype records (ray, box, t). The test is the slab test in float32. Rays in device
memory ((n, 7) only) give a DeviceArray of (k, 3) 32-bit words (ray, box, and t's float32 bits:
cupy's a.view(cupy.float32)[:, 2]), valid until the next raycast() or update().
)doc")
      .def_property_readonly(
          "stats",
          [](const PyBroadPhase& self) {
            const InUse in_use(self.busy, "BroadPhase");
            return to_dict(self.broad_phase.stats());
          },
          "What the last frame did: counts, and times in milliseconds per stage.")
      .def_property_readonly(
          "backend",
          [](const PyBroadPhase& self) { return std::string(rsw::to_string(self.backend)); },
          "Where the frames run: 'cpu' or 'cuda' ('auto' resolved).");
}

}  // namespace rsw::python
