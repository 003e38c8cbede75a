#include "box_files.hpp"

#include <charconv>
#include <fstream>
#include <string_view>

#include "rsw/engine/error.hpp"

namespace rsw::bench {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::vector<physics::Aabb> read_boxes_csv(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw Error(ErrorKind::Io, "cannot open the box file '" + path + "'");
  std::vector<physics::Aabb> boxes;
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    float values[6];
    std::string_view rest = text;
    for (int field = 0; field < 6; ++field) {
      const auto comma = rest.find(',');
      const std::string_view token = trim(rest.substr(0, comma));
      const auto [end, error] =
          std::from_chars(token.data(), token.data() + token.size(), values[field]);
      if (error != std::errc{} || end != token.data() + token.size() ||
          (field < 5 && comma == std::string_view::npos) ||
          (field == 5 && comma != std::string_view::npos)) {
        throw Error(ErrorKind::InvalidArgument,
                    path + ":" + std::to_string(line_number) +
                        ": expected min_x,min_y,min_z,max_x,max_y,max_z, got '" +
                        std::string(text) + "'");
      }
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    boxes.push_back({{values[0], values[1], values[2]}, {values[3], values[4], values[5]}});
  }
  return boxes;
}

void write_pairs_csv(const std::string& path, physics::PairView pairs) {
  std::ofstream file(path);
  file << "# a,b: overlapping boxes by line number among the boxes (0-based), a < b\n";
  for (const physics::Pair& pair : pairs)
    file << pair.a << ',' << pair.b << '\n';
  file.close();
  if (!file) throw Error(ErrorKind::Io, "writing pairs to '" + path + "' failed");
}

}  // namespace rsw::bench
