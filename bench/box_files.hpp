// Boxes and pairs as CSV files, so users can run the broad phase on their own data.
#pragma once

#include <string>
#include <vector>

#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::bench {

/// One box per line: min_x,min_y,min_z,max_x,max_y,max_z. Blank lines and lines starting
/// with '#' are skipped. Throws rsw::Error naming the file and line of anything else.
std::vector<physics::Aabb> read_boxes_csv(const std::string& path);

/// One pair per line, "a,b" with a < b, in the order given.
void write_pairs_csv(const std::string& path, physics::PairView pairs);

}  // namespace rsw::bench
