// <hetero/version.hpp>: the headers' macros and the library's hetero::version() agree (one
// build), and both follow the project's version.
#include <gtest/gtest.h>

#include <string>

#include <hetero/version.hpp>

TEST(Version, LibraryAndHeadersAgree) {
  const hetero::Version v = hetero::version();
  EXPECT_EQ(v.major, HETERO_VERSION_MAJOR);
  EXPECT_EQ(v.minor, HETERO_VERSION_MINOR);
  EXPECT_EQ(v.patch, HETERO_VERSION_PATCH);
  EXPECT_EQ(std::string(v.string), HETERO_VERSION_STRING);
  EXPECT_EQ(std::string(v.string), std::to_string(v.major) + "." + std::to_string(v.minor) + "." +
                                       std::to_string(v.patch));
  EXPECT_EQ(HETERO_VERSION, v.major * 10000 + v.minor * 100 + v.patch);
}
