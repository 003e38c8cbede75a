// What the module's parts share: the classes' bindings, the options' names as Python takes
// them ("auto", "cpu", "gpu"; "cells", ...), the stats as dicts.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/physics/world.hpp"
#include "rsw/sort/sorter.hpp"

namespace rsw::python {

namespace py = pybind11;

void bind_broad_phase(py::module_& module);
void bind_world(py::module_& module);

/// "auto", "cpu", "gpu" (or "cuda"); rsw::Error (InvalidArgument) naming the choices else.
rsw::Backend backend_named(const std::string& name);
/// "auto", "cpu", "fourway", "onesweep".
sort::Algorithm sort_named(const std::string& name);
/// "x", "y", "z", "largest_variance".
physics::SweepAxis axis_named(const std::string& name);
/// "cells", "axis_sweep".
physics::SweepMode mode_named(const std::string& name);
/// "reject", "exclude".
physics::InvalidBoxes invalid_boxes_named(const std::string& name);
/// A CUDA stream handed over as an int (None: nullptr, the library's own streams).
StreamHandle stream_named(const py::object& stream);
/// A world id as the queries take it: None for every world (kAllWorlds), else an id.
std::uint32_t world_named(const py::object& world);

/// One call on a BroadPhase or World, whose library work runs with the GIL released: a second
/// thread calling the same object meanwhile gets a RuntimeError instead of racing on it (an
/// object is for one thread at a time; separate objects may work in parallel). Made and ended
/// with the GIL held, which orders the flag's reads and writes.
class InUse {
 public:
  InUse(bool& busy, const char* type) : busy_(busy) {
    if (busy_) {
      throw std::runtime_error(std::string(type) +
                               " is in use by another thread: an object takes one call at a "
                               "time (give each thread its own)");
    }
    busy_ = true;
  }
  ~InUse() { busy_ = false; }
  InUse(const InUse&) = delete;
  InUse& operator=(const InUse&) = delete;

 private:
  bool& busy_;
};

/// The stats as dicts of plain values (times in milliseconds).
py::dict to_dict(const physics::BroadPhaseStats& stats);
py::dict to_dict(const physics::WorldStats& stats);

}  // namespace rsw::python
