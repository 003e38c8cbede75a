// What the module's parts share: the classes' bindings, the options' names as Python takes
// them ("auto", "cpu", "gpu"; "cells", ...), the stats as dicts.
#pragma once

#include <pybind11/pybind11.h>

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

/// The stats as dicts of plain values (times in milliseconds).
py::dict to_dict(const physics::BroadPhaseStats& stats);
py::dict to_dict(const physics::WorldStats& stats);

}  // namespace rsw::python
