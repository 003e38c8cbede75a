#include "rsw/engine/error.hpp"

#include <gtest/gtest.h>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/cuda_check.hpp"

namespace rsw {
namespace {

TEST(Error, CarriesKindMessageAndCudaStatus) {
  const Error error(ErrorKind::OutOfMemory, "allocating 2 GiB", 2);
  EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
  EXPECT_STREQ(error.what(), "allocating 2 GiB");
  EXPECT_EQ(error.cuda_status(), 2);
  EXPECT_EQ(Error(ErrorKind::Io, "x").cuda_status(), 0);
}

TEST(Error, KindsHaveNames) {
  EXPECT_EQ(to_string(ErrorKind::InvalidArgument), "invalid argument");
  EXPECT_EQ(to_string(ErrorKind::OutOfMemory), "out of memory");
  EXPECT_EQ(to_string(ErrorKind::DeviceUnavailable), "device unavailable");
  EXPECT_EQ(to_string(ErrorKind::Cuda), "CUDA error");
  EXPECT_EQ(to_string(ErrorKind::Io), "I/O error");
}

TEST(CudaCheck, SuccessDoesNotEvaluateTheDescription) {
  int descriptions_built = 0;
  const auto describe = [&] {
    ++descriptions_built;
    return std::string("never needed");
  };
  RSW_CUDA_CHECK(0, describe());
  EXPECT_EQ(descriptions_built, 0);
}

// Works without a GPU: a status of 2 is cudaErrorMemoryAllocation in every CUDA release.
TEST(CudaCheck, FailureNamesCallFileLineAndWhatWasBeingDone) {
  const int line = __LINE__ + 2;
  try {
    RSW_CUDA_CHECK(2, "allocating the pair buffer");
    FAIL() << "RSW_CUDA_CHECK did not throw";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.cuda_status(), 2);
    EXPECT_NE(message.find("allocating the pair buffer"), std::string::npos) << message;
    EXPECT_NE(message.find("2 failed at"), std::string::npos) << message;
    if (cuda_runtime_info().built_with_cuda) {
      EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
      EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
    }
    EXPECT_NE(message.find("tests/engine/error_test.cpp:" + std::to_string(line)),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace rsw
