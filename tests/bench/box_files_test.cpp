// The box-file reader of radixsweep-bench: what it accepts, how it names what it refuses, and
// that random bytes and cut-off lines give an error or a correct parse, never a crash.
#include "box_files.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "rsw/engine/error.hpp"

namespace rsw::bench {
namespace {

std::vector<physics::Aabb> read(const std::string& text) {
  std::istringstream input(text);
  return read_boxes_csv(input, "boxes.csv");
}

// The message of the error reading `text` gives; fails the test when it reads.
std::string error_of(const std::string& text, ErrorKind kind = ErrorKind::InvalidArgument) {
  try {
    read(text);
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), kind) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "read without an error: " << text.substr(0, 80);
  return {};
}

TEST(BoxFiles, ReadsBoxesSkippingCommentsAndBlankLines) {
  const auto boxes = read("# a comment\n0,0,0,1,1,1\n\n  1 , 0.5,0.5, 2,2,2  \r\n5,5,5,6,6,6");
  ASSERT_EQ(boxes.size(), 3u);
  EXPECT_EQ(boxes[1].min.y, 0.5f);
  EXPECT_EQ(boxes[2].max.z, 6.0f);
  EXPECT_TRUE(read("").empty());
  EXPECT_TRUE(read("# only a comment\n").empty());
}

TEST(BoxFiles, WrongFieldCountsNameTheLine) {
  EXPECT_EQ(error_of("0,0,0,1,1,1\n0,0,0,1,1\n"),
            "boxes.csv:2: 5 fields where a box has 6 (min_x,min_y,min_z,max_x,max_y,max_z)");
  EXPECT_EQ(error_of("0,0,0,1,1,1,1\n").substr(0, 25), "boxes.csv:1: 7 fields whe");
  EXPECT_EQ(error_of("0,0,x,1,1,1\n"), "boxes.csv:1: min_z: expected a number, got 'x'");
  EXPECT_EQ(error_of("0,0,,1,1,1\n"), "boxes.csv:1: min_z: expected a number, got ''");
  EXPECT_EQ(error_of("0,0,1e,1,1,1\n"), "boxes.csv:1: min_z: expected a number, got '1e'");
}

TEST(BoxFiles, NumbersPastTheFloatRangeAreNamedWithTheirLine) {
  EXPECT_EQ(error_of("0,0,0,1e39,1,1\n"),
            "boxes.csv:1: max_x '1e39' is past the float range (+-3.4e38)");
  EXPECT_EQ(error_of("\n-1e300,0,0,1,1,1\n"),
            "boxes.csv:2: min_x '-1e300' is past the float range (+-3.4e38)");
}

TEST(BoxFiles, NumbersBelowTheSmallestFloatReadAsZeroAndDenormalsStay) {
  const auto boxes = read("-1e-50,0,0,1e-50,1e-40,1\n");
  ASSERT_EQ(boxes.size(), 1u);
  EXPECT_EQ(boxes[0].min.x, 0.0f);
  EXPECT_TRUE(std::signbit(boxes[0].min.x));
  EXPECT_EQ(boxes[0].max.x, 0.0f);
  EXPECT_EQ(boxes[0].max.y, 1e-40f);
}

TEST(BoxFiles, InvalidBoxesNameTheirLine) {
  EXPECT_EQ(error_of("0,0,0,1,1,1\n0,2,0,1,1,1\n"), "boxes.csv:2: min > max on y (2 > 1)");
  EXPECT_EQ(error_of("nan,0,0,1,1,1\n"),
            "boxes.csv:1: min_x is 'nan': a box's bounds are finite numbers");
  EXPECT_EQ(error_of("0,0,0,1,inf,1\n"),
            "boxes.csv:1: max_y is 'inf': a box's bounds are finite numbers");
}

TEST(BoxFiles, LongLinesAndNulBytesAreRefused) {
  EXPECT_EQ(error_of(std::string(5000, '\0')),
            "boxes.csv:1: a line longer than 1024 characters (is this a box file?)");
  EXPECT_EQ(error_of(std::string("0,0,0,1,1,1\0", 12) + "\n"),
            "boxes.csv:1: max_z: expected a number, got '1\\x00'");
}

TEST(BoxFiles, FilesThatCannotBeReadAreIoErrors) {
  EXPECT_THROW(
      {
        try {
          read_boxes_csv("/nonexistent/boxes.csv");
        } catch (const Error& error) {
          EXPECT_EQ(error.kind(), ErrorKind::Io);
          throw;
        }
      },
      Error);
  try {
    read_boxes_csv("/");
    ADD_FAILURE() << "a directory was read";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Io) << error.what();
  }
}

// An independent reading of one line, for the fuzz test: strtof on each comma-separated field.
bool reference_parse(const std::string& line, physics::Aabb& box) {
  std::vector<std::string> fields;
  std::string field;
  for (const char character : line) {
    if (character == ',') {
      fields.push_back(field);
      field.clear();
    } else {
      field += character;
    }
  }
  fields.push_back(field);
  if (fields.size() != 6) return false;
  float values[6];
  for (int i = 0; i < 6; ++i) {
    std::string& text = fields[static_cast<std::size_t>(i)];
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
      text.pop_back();
    char* end = nullptr;
    const float value = std::strtof(text.c_str(), &end);  // correctly rounded, like the reader
    if (text.empty() || *end != '\0' || !std::isfinite(value)) return false;
    values[i] = value;
  }
  box = {{values[0], values[1], values[2]}, {values[3], values[4], values[5]}};
  return true;
}

// Random bytes, and good lines cut short at a random place: every input reads or gives an
// rsw::Error, and what reads agrees with strtof. A failure prints its seed.
TEST(BoxFiles, RandomBytesAndCutLinesGiveAnErrorOrACorrectParse) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  const std::string alphabet = "0123456789.,-+eE \t\r\nnaifx#\0";
  for (int round = 0; round < 20'000; ++round) {
    std::string text;
    if (round % 2 == 0) {  // bytes from a box file's alphabet, or any byte
      const std::size_t length = std::uniform_int_distribution<std::size_t>(0, 60)(random);
      for (std::size_t i = 0; i < length; ++i) {
        text += round % 4 == 0
                    ? static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random))
                    : alphabet[std::uniform_int_distribution<std::size_t>(
                          0, alphabet.size() - 1)(random)];
      }
    } else {  // a good line, cut at a random place
      std::uniform_real_distribution<float> value(-100, 100);
      const float low[3] = {value(random), value(random), value(random)};
      char line[256];
      std::snprintf(line, sizeof line, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", low[0], low[1], low[2],
                    low[0] + 1, low[1] + 1, low[2] + 1);
      text = std::string(line).substr(
          0, std::uniform_int_distribution<std::size_t>(0, std::strlen(line))(random));
    }
    std::vector<physics::Aabb> boxes;
    try {
      boxes = read(text);
    } catch (const Error& error) {
      ASSERT_TRUE(error.kind() == ErrorKind::InvalidArgument) << error.what();
      continue;
    }
    // It read: each box must be what strtof makes of its line.
    std::istringstream lines(text);
    std::string line;
    std::size_t next = 0;
    while (std::getline(lines, line)) {
      std::string trimmed = line;
      trimmed.erase(0, trimmed.find_first_not_of(" \t\r"));
      if (trimmed.empty() || trimmed.front() == '#') continue;
      physics::Aabb expected{};
      ASSERT_TRUE(reference_parse(line, expected)) << "read a line strtof refuses: " << line;
      ASSERT_LT(next, boxes.size());
      EXPECT_EQ(boxes[next].min.x, expected.min.x) << line;
      EXPECT_EQ(boxes[next].max.z, expected.max.z) << line;
      ++next;
    }
    EXPECT_EQ(next, boxes.size());
  }
}

}  // namespace
}  // namespace rsw::bench
