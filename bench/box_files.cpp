#include "box_files.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"

namespace rsw::bench {
namespace {

constexpr std::array<const char*, 6> kFields = {"min_x", "min_y", "min_z",
                                                "max_x", "max_y", "max_z"};
constexpr const char* kAxisNames = "xyz";
// How much of a bad token a message quotes.
constexpr std::size_t kQuotedCharacters = 40;

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// `text` as a message may show it: printable ASCII, other bytes as \xNN, cut short.
std::string quoted(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kQuotedCharacters; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      out += static_cast<char>(byte);
    } else {
      out += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
    }
  }
  if (text.size() > kQuotedCharacters) out += "...";
  return out + "'";
}

// The shortest text that reads back as `value`: 2, not 2.000000.
std::string shortest(float value) {
  std::array<char, 32> text{};
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} ? std::string(text.data(), end) : std::to_string(value);
}

// Parses one box line, naming the file and line in its errors.
class LineParser {
 public:
  LineParser(const std::string& name, std::size_t line) : name_(name), line_(line) {}

  physics::Aabb parse(std::string_view text) const {
    float values[6];
    std::size_t field = 0;
    std::string_view rest = text;
    while (true) {
      const auto comma = rest.find(',');
      if (field < 6) values[field] = number(trim(rest.substr(0, comma)), field);
      ++field;
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    if (field != 6) {
      fail(std::to_string(field) +
           " fields where a box has 6 (min_x,min_y,min_z,max_x,max_y,max_z)");
    }
    for (int axis = 0; axis < 3; ++axis) {
      if (!(values[axis] <= values[axis + 3])) {
        fail("min > max on " + std::string(1, kAxisNames[axis]) + " (" + shortest(values[axis]) +
             " > " + shortest(values[axis + 3]) + ")");
      }
    }
    return {{values[0], values[1], values[2]}, {values[3], values[4], values[5]}};
  }

 private:
  float number(std::string_view token, std::size_t field) const {
    const char* name = field < kFields.size() ? kFields[field] : "a field";
    float value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (token.empty() || end != token.data() + token.size() ||
        error == std::errc::invalid_argument) {
      fail(std::string(name) + ": expected a number, got " + quoted(token));
    }
    if (error == std::errc::result_out_of_range) {
      // Past the float range, or below its smallest denormal: strtod tells which.
      const std::string digits(token);
      const double wide = std::strtod(digits.c_str(), nullptr);
      if (std::fabs(wide) >= 1.0) {
        fail(std::string(name) + " " + quoted(token) + " is past the float range (+-3.4e38)");
      }
      value = std::signbit(wide) ? -0.0f : 0.0f;
    }
    if (!std::isfinite(value)) {
      fail(std::string(name) + " is " + quoted(token) + ": a box's bounds are finite numbers");
    }
    return value;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorKind::InvalidArgument, name_ + ":" + std::to_string(line_) + ": " + why);
  }

  const std::string& name_;
  std::size_t line_;
};

}  // namespace

std::vector<physics::Aabb> read_boxes_csv(std::istream& input, const std::string& name) {
  std::vector<physics::Aabb> boxes;
  std::array<char, kMostBoxLineCharacters + 1> line{};  // the characters and a terminator
  std::size_t line_number = 0;
  while (true) {
    errno = 0;
    input.getline(line.data(), static_cast<std::streamsize>(line.size()));
    if (input.bad()) {
      throw Error(ErrorKind::Io, "reading " + name + " failed after line " +
                                     std::to_string(line_number) +
                                     (errno != 0 ? std::string(": ") + std::strerror(errno) : ""));
    }
    const auto extracted = static_cast<std::size_t>(input.gcount());
    if (extracted == 0 && input.eof()) break;  // the end, after a last newline or none
    ++line_number;
    if (input.fail()) {  // the buffer filled before the line ended
      throw Error(ErrorKind::InvalidArgument,
                  name + ":" + std::to_string(line_number) + ": a line longer than " +
                      std::to_string(kMostBoxLineCharacters) + " characters (is this a box file?)");
    }
    // getline counts the newline it took; the line itself may hold NUL bytes, which the
    // parser then refuses like any other character that is not part of a number.
    const std::size_t stored = input.eof() ? extracted : extracted - 1;
    const std::string_view text = trim({line.data(), stored});
    if (!text.empty() && text.front() != '#') {
      const physics::Aabb box = LineParser(name, line_number).parse(text);
      try {
        boxes.push_back(box);
      } catch (const std::bad_alloc&) {
        throw host_allocation_error(
            "the boxes of " + name + ", past the " + std::to_string(boxes.size()) + " read",
            2 * boxes.capacity() * sizeof(physics::Aabb));
      }
    }
    if (input.eof()) break;
  }
  return boxes;
}

std::vector<physics::Aabb> read_boxes_csv(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(ErrorKind::Io, "the box file '" + path + "' is a directory");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(ErrorKind::Io, "cannot open the box file '" + path + "': " + std::strerror(errno));
  }
  return read_boxes_csv(file, path);
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
