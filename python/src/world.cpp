// radixsweep.World: proxies behind handles, steps with found and lost pairs, queries.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

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
namespace {

physics::Motion motion_named(const std::string& name) {
  if (name == "moving") return physics::Motion::Moving;
  if (name == "static") return physics::Motion::Static;
  throw rsw::Error(rsw::ErrorKind::InvalidArgument, "motion '" + name + "': one of moving, static");
}

// A World, its backend ('auto' resolved), and when its device results stop being valid.
struct PyWorld {
  physics::World world;
  rsw::Backend backend;
  StreamHandle stream;  // the caller's, or nullptr: the library's own
  Validity steps, queries, rays;
  mutable bool busy = false;  // a call is under way (InUse)
};

constexpr const char* kUntilStep = "the World's next step()";

void check_one_box_per_id(std::size_t ids, std::size_t boxes) {
  if (ids != boxes) {
    throw py::value_error("move: " + std::to_string(ids) + " ids and " + std::to_string(boxes) +
                          " boxes; one box per id");
  }
}

// Pairs of a step in device memory: (m, 2) uint64 ids (index | generation << 32).
py::object device_pairs(const py::object& owner, const PyWorld& self,
                        DeviceSpan<const physics::ProxyPair> pairs) {
  return device_result(pairs.data, {static_cast<std::int64_t>(pairs.size), 2}, 'u', 8, owner,
                       self.steps, kUntilStep, self.stream);
}

}  // namespace

void bind_world(py::module_& module) {
  py::class_<PyWorld>(
      module, "World",
      R"doc(A persistent broad phase: proxies created, moved and destroyed between steps, each step's
overlapping pairs and the pairs that began (found) and ended (lost) overlapping since the step
before; region and ray queries.

    world = radixsweep.World(backend="auto")
    ground = world.create(np.array([-50, -1, -50, 50, 0, 50], np.float32), motion="static")
    crates = world.create(boxes)          # (n, 6) float32 -> (n,) proxy_id_dtype
    world.step()
    found, lost = world.events()          # (k, 2) proxy_id_dtype each: (a, b), a < b
    world.move(crates, moved_boxes)
    world.step()
    now = world.pairs()                   # (m, 2) proxy_id_dtype, sorted

Ids (proxy_id_dtype: index, generation) are reused after destroy() with a new generation: a
stale id is an InvalidArgumentError, never another proxy. Static proxies never pair with each
other; moving ones pair with everything their filter bits and worlds admit.

Arrays in device memory (CuPy, PyTorch, ... through __cuda_array_interface__ or __dlpack__) are
used where they lie, and give results in device memory: DeviceArray objects, read without a
copy by cupy.asarray or torch.from_dlpack. Ids there are uint64 (index | generation << 32).
)doc")
      .def(py::init([](const std::string& backend, const std::string& sort, const std::string& axis,
                       const std::string& invalid_boxes, bool sorted_events, bool stage_times,
                       bool brute_force, const py::object& stream) {
             const rsw::Backend resolved = rsw::resolve_backend(backend_named(backend));
             const StreamHandle handle = stream_named(stream);
             return PyWorld{physics::World({.backend = resolved,
                                            .brute_force = brute_force,
                                            .sort = sort_named(sort),
                                            .axis = axis_named(axis),
                                            .invalid_boxes = invalid_boxes_named(invalid_boxes),
                                            .sorted_events = sorted_events,
                                            .stage_times = stage_times,
                                            .stream = handle}),
                            resolved, handle};
           }),
           py::kw_only(), py::arg("backend") = "auto", py::arg("sort") = "auto",
           py::arg("axis") = "x", py::arg("invalid_boxes") = "reject",
           py::arg("sorted_events") = false, py::arg("stage_times") = true,
           py::arg("brute_force") = false, py::arg("stream") = py::none(),
           R"doc(backend: "auto" (the GPU when a CUDA device is usable), "cpu" or "gpu".
sort: the moving proxies' sort: "auto", "cpu", "fourway" or "onesweep".
axis: the sweep axis: "x", "y", "z" or "largest_variance".
invalid_boxes: "reject" (create and move raise for a bad box) or "exclude" (it pairs with
nothing).
sorted_events: found and lost sorted by (a, b) (sorted on the CPU anyway).
stage_times: time each stage for stats.
brute_force: test every pair on the CPU, O(n^2): an oracle.
stream: the CUDA stream the GPU works on, as an int handle (cupy's stream.ptr, torch's
stream.cuda_stream); None: a stream of its own, ordered with the default stream. Device
arrays are then read in that stream's order, and device results are ready in it.
)doc")
      .def(
          "create",
          [](PyWorld& self, const py::object& boxes, const std::string& motion,
             std::uint32_t category, std::uint32_t mask, std::uint32_t world,
             std::uint64_t user) -> py::object {
            const InUse in_use(self.busy, "World");
            const physics::ProxyOptions options{.motion = motion_named(motion),
                                                .category = category,
                                                .mask = mask,
                                                .world = world,
                                                .user = user};
            if (const auto input = DeviceInput::of(boxes, "boxes", self.stream)) {
              // The ids into device memory of their own.
              const DeviceSpan<const physics::Aabb> view = device_boxes(*input, "boxes");
              auto ids = std::make_shared<DeviceBuffer<physics::ProxyId>>(view.size);
              {
                py::gil_scoped_release unlocked;
                self.world.create(view, options, ids->span());
              }
              const void* data = ids->data();
              return device_result(std::move(ids), data, {static_cast<std::int64_t>(view.size)},
                                   'u', 8, self.stream);
            }
            const ArrayView<physics::Aabb> view = boxes_from(boxes, "boxes");
            std::vector<physics::ProxyId> ids(view.values.size());
            {
              py::gil_scoped_release unlocked;
              self.world.create(view.values, options, ids);
            }
            return records_to_numpy(std::span<const physics::ProxyId>(ids));
          },
          py::arg("boxes"), py::kw_only(), py::arg("motion") = "moving", py::arg("category") = 1u,
          py::arg("mask") = 0xFFFFFFFFu, py::arg("world") = 0u, py::arg("user") = 0u,
          R"doc(New proxies, one per box (float32, (n, 6) or (n, 2, 3), or one box), all with these
options: motion "moving" or "static", filter bits (category, mask), world (ALL_WORLDS meets
every world) and a 64-bit user value. Returns their ids, (n,) proxy_id_dtype; from boxes in
device memory, a DeviceArray of (n,) uint64 ids (kept as long as it lives). They take part
from the next step().
)doc")
      .def(
          "move",
          [](PyWorld& self, const py::object& ids, const py::object& boxes) {
            const InUse in_use(self.busy, "World");
            const auto id_input = DeviceInput::of(ids, "ids", self.stream);
            const auto box_input = DeviceInput::of(boxes, "boxes", self.stream);
            if ((id_input != nullptr) != (box_input != nullptr)) {
              throw py::type_error("move: ids and boxes both in host memory or both on the device");
            }
            if (id_input) {
              const DeviceSpan<const physics::ProxyId> id_view = device_ids(*id_input, "ids");
              const DeviceSpan<const physics::Aabb> box_view = device_boxes(*box_input, "boxes");
              check_one_box_per_id(id_view.size, box_view.size);
              py::gil_scoped_release unlocked;
              self.world.move(id_view, box_view);
              return;
            }
            const ArrayView<physics::ProxyId> id_view = ids_from(ids, "ids");
            const ArrayView<physics::Aabb> box_view = boxes_from(boxes, "boxes");
            check_one_box_per_id(id_view.values.size(), box_view.values.size());
            py::gil_scoped_release unlocked;
            self.world.move(id_view.values, box_view.values);
          },
          py::arg("ids"), py::arg("boxes"),
          "Gives proxies new boxes: ids[i] gets boxes[i]. Every id is checked before any box "
          "changes; a stale one is an InvalidArgumentError (from device arrays on the GPU: "
          "skipped there and reported by the next step()).")
      .def(
          "destroy",
          [](PyWorld& self, const py::object& ids) {
            const InUse in_use(self.busy, "World");
            if (const auto input = DeviceInput::of(ids, "ids", self.stream)) {
              const DeviceSpan<const physics::ProxyId> view = device_ids(*input, "ids");
              py::gil_scoped_release unlocked;
              self.world.destroy(view);
              return;
            }
            const ArrayView<physics::ProxyId> view = ids_from(ids, "ids");
            py::gil_scoped_release unlocked;
            self.world.destroy(view.values);
          },
          py::arg("ids"),
          "Removes proxies (every id checked first; a repeat is stale). Their pairs are reported "
          "lost at the next step().")
      .def(
          "step",
          [](PyWorld& self) {
            const InUse in_use(self.busy, "World");
            self.steps.advance();
            self.queries.advance();
            self.rays.advance();
            py::gil_scoped_release unlocked;
            self.world.step();
          },
          "One step: the pairs of the proxies as they are now, and the events since the last "
          "step.")
      .def(
          "events",
          [](const py::object& self_object, bool device) -> py::tuple {
            auto& self = self_object.cast<PyWorld&>();
            const InUse in_use(self.busy, "World");
            if (device) {
              const physics::DeviceWorldEvents events = self.world.events_device();
              return py::make_tuple(device_pairs(self_object, self, events.found),
                                    device_pairs(self_object, self, events.lost));
            }
            const physics::WorldEvents events = self.world.events();
            return py::make_tuple(proxy_pairs_to_numpy(events.found),
                                  proxy_pairs_to_numpy(events.lost));
          },
          py::kw_only(), py::arg("device") = false,
          R"doc((found, lost) of the last step: (k, 2) proxy_id_dtype arrays of pairs (a, b), a < b.
found: the pairs now that were not pairs at the step before (created proxies included); lost:
the pairs then that are not now (destroyed proxies included). device=True: DeviceArrays of
(k, 2) uint64 ids, valid until the next step().
)doc")
      .def(
          "pairs",
          [](const py::object& self_object, bool device) -> py::object {
            auto& self = self_object.cast<PyWorld&>();
            const InUse in_use(self.busy, "World");
            if (device) return device_pairs(self_object, self, self.world.pairs_device());
            return proxy_pairs_to_numpy(self.world.pairs());
          },
          py::kw_only(), py::arg("device") = false,
          "Every overlapping pair as of the last step: (m, 2) proxy_id_dtype, sorted by (a, b); "
          "device=True: a DeviceArray of (m, 2) uint64 ids, valid until the next step().")
      .def(
          "query",
          [](const py::object& self_object, const py::object& regions, std::uint32_t mask,
             const py::object& world) -> py::object {
            auto& self = self_object.cast<PyWorld&>();
            const InUse in_use(self.busy, "World");
            const physics::QueryOptions options{.mask = mask, .world = world_named(world)};
            return answer_query<physics::Aabb>(
                self_object, self.stream, self.queries, "the World's next query() or step()",
                regions, "regions", [&](auto view) { return self.world.query(view, options); });
          },
          py::arg("regions"), py::kw_only(), py::arg("mask") = 0xFFFFFFFFu,
          py::arg("world") = py::none(),
          R"doc(Every live proxy whose box overlaps each region (float32, as boxes) as of the last step,
whose category & mask is non-zero and, with `world`, in that world (or ALL_WORLDS):
query_hit_dtype records (query, proxy), sorted by (query, proxy). Regions in device memory give
a DeviceArray of (k, 3) uint32 (query, proxy index, generation), valid until the next query()
or step().
)doc")
      .def(
          "raycast",
          [](const py::object& self_object, const py::object& rays, bool all_hits,
             std::uint32_t mask, const py::object& world) -> py::object {
            auto& self = self_object.cast<PyWorld&>();
            const InUse in_use(self.busy, "World");
            const physics::RaycastOptions options{
                .all_hits = all_hits, .mask = mask, .world = world_named(world)};
            return answer_query<physics::Ray>(
                self_object, self.stream, self.rays, "the World's next raycast() or step()", rays,
                "rays", [&](auto view) { return self.world.raycast(view, options); });
          },
          py::arg("rays"), py::kw_only(), py::arg("all_hits") = false,
          py::arg("mask") = 0xFFFFFFFFu, py::arg("world") = py::none(),
          R"doc(The proxy each ray (float32, (n, 7): origin, direction, max_t; or (n, 6) without an end)
enters first within [0, max_t] as of the last step; a ray starting inside a box hits it at
t = 0. With all_hits, every proxy along each ray, sorted by (ray, t). ray_hit_dtype records
(ray, proxy, t). Rays in device memory ((n, 7) only) give a DeviceArray of (k, 4) 32-bit words
(ray, proxy index, generation, and t's float32 bits), valid until the next raycast() or step().
)doc")
      .def(
          "user",
          [](const PyWorld& self, const py::object& id) {
            const InUse in_use(self.busy, "World");
            const ArrayView<physics::ProxyId> view = ids_from(id, "id");
            if (view.values.size() != 1) {
              throw py::value_error("id: expected one id, got " +
                                    std::to_string(view.values.size()));
            }
            return self.world.user(view.values[0]);
          },
          py::arg("id"), "The user value of a live proxy (an InvalidArgumentError for a stale id).")
      .def_property_readonly(
          "stats",
          [](const PyWorld& self) {
            const InUse in_use(self.busy, "World");
            return to_dict(self.world.stats());
          },
          "What the last step did: counts (proxies, pairs, found, lost, ...) and times in "
          "milliseconds per stage.")
      .def_property_readonly(
          "backend", [](const PyWorld& self) { return std::string(rsw::to_string(self.backend)); },
          "Where the steps run: 'cpu' or 'cuda' ('auto' resolved).");
}

}  // namespace rsw::python
