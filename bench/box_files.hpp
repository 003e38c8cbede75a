// Boxes and pairs as CSV files, so users can run the broad phase on their own data.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "rsw/physics/aabb.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::bench {

/// The longest line a box file may have: a box takes six numbers, well under this.
constexpr std::size_t kMostBoxLineCharacters = 1024;

/// One box per line: min_x,min_y,min_z,max_x,max_y,max_z, as decimal numbers (spaces around
/// them allowed). Blank lines and lines starting with '#' are skipped. A number too small for
/// a float reads as 0 of its sign, one between the normal floats and 0 as the denormal float
/// nearest it. Throws rsw::Error naming the file and line of anything else: (InvalidArgument)
/// a line that is not six numbers, a number past the float range, a NaN or infinite bound, a
/// minimum above its maximum, a line longer than kMostBoxLineCharacters; (Io) a file that
/// cannot be opened or read to its end; (OutOfMemory) boxes that do not fit in host memory.
std::vector<physics::Aabb> read_boxes_csv(const std::string& path);

/// The same from a stream; `name` stands for the file in messages.
std::vector<physics::Aabb> read_boxes_csv(std::istream& input, const std::string& name);

/// One pair per line, "a,b" with a < b, in the order given.
void write_pairs_csv(const std::string& path, physics::PairView pairs);

}  // namespace rsw::bench
