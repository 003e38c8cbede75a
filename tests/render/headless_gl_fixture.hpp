// A GoogleTest fixture for tests that draw: one HeadlessContext for the whole suite, current in
// each test; every test is skipped, saying why, where EGL gives no OpenGL 4.5 core context.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "rsw/engine/error.hpp"
#include "rsw/render/headless_context.hpp"

namespace rsw::render::testing {

class HeadlessGlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      context_ = std::make_unique<HeadlessContext>();
      std::printf("context: %s\n", context_->description().c_str());
    } catch (const Error& error) {
      skip_reason_ = error.what();
    }
  }
  static void TearDownTestSuite() { context_.reset(); }
  void SetUp() override {
    if (!context_) GTEST_SKIP() << skip_reason_;
    context_->make_current();
  }

  static inline std::unique_ptr<HeadlessContext> context_;
  static inline std::string skip_reason_;
};

}  // namespace rsw::render::testing
