// memcached's text-protocol authentication (net/ascii_auth.hpp): the auth
// file's format, and each way memcached 1.6.18 answers an unauthenticated
// connection's input (checked against memcached 1.6.18 with -Y).

#include "net/ascii_auth.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace gpuhash::server::net {
namespace {

class AuthFile : public testing::Test {
 protected:
  std::string write(const std::string& text) {
    char path[] = "/tmp/gpuhash-auth-XXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    ::close(fd);
    std::ofstream(path) << text;
    paths_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const std::string& path : paths_) std::remove(path.c_str());
  }
  std::vector<std::string> paths_;
};

TEST_F(AuthFile, ReadsUserPasswordLines) {
  const auth_file users = auth_file::load(write("alice:wonderland\r\nbob:builder:2\n\ncarol:\n"));
  EXPECT_EQ(users.users(), 3u);
  EXPECT_TRUE(users.check("alice", "wonderland"));
  EXPECT_TRUE(users.check("bob", "builder:2"));  // the password is all after the first ':'
  EXPECT_TRUE(users.check("carol", ""));
  EXPECT_FALSE(users.check("alice", "wonderlan"));
  EXPECT_FALSE(users.check("alice", "wonderland "));
  EXPECT_FALSE(users.check("bob", "builder"));
  EXPECT_FALSE(users.check("mallory", "wonderland"));
}

TEST_F(AuthFile, RefusesWhatMemcachedRefuses) {
  try {
    auth_file::load("/nonexistent/users");
    FAIL() << "a missing file was read";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("Could not open authfile [/nonexistent/users]"),
              std::string::npos);
  }
  const std::string malformed = write("alice:wonderland\nno colon here\n");
  try {
    auth_file::load(malformed);
    FAIL() << "a malformed file was read";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("has a malformed entry. Should be 'user:password'"),
              std::string::npos);
  }
}

class Authenticate : public AuthFile {
 protected:
  void SetUp() override { users_ = auth_file::load(write("alice:wonderland\n")); }
  std::string outcome(std::string_view input) const {
    const auth_step step = authenticate(input, users_);
    switch (step.what) {
      case auth_step::action::need_more: return "need_more";
      case auth_step::action::close: return "close";
      case auth_step::action::reply: break;
    }
    std::string text(step.reply.substr(0, step.reply.size() - 2));
    text += " consumed=" + std::to_string(step.consumed);
    if (step.authenticated) text += " authenticated";
    if (step.counted) text += step.failed ? " counted failed" : " counted";
    return text;
  }
  auth_file users_;
};

TEST_F(Authenticate, AcceptsTheRightSet) {
  EXPECT_EQ(outcome("set any 0 0 16\r\nalice wonderland\r\nget a\r\n"),
            "STORED consumed=34 authenticated counted");
  EXPECT_EQ(outcome("set any 0 0 16\nalice wonderland\r\n"),
            "STORED consumed=33 authenticated counted");
  // words after the password are ignored, as memcached's tokenizer leaves them
  EXPECT_EQ(outcome("set k 5 7 22\r\nalice wonderland extra\r\n"),
            "STORED consumed=38 authenticated counted");
}

TEST_F(Authenticate, FailsEverythingElse) {
  EXPECT_EQ(outcome("set k 0 0 11\r\nalice wrong\r\n"),
            "CLIENT_ERROR authentication failure consumed=27 counted failed");
  EXPECT_EQ(outcome("get k\r\n"), "CLIENT_ERROR unauthenticated consumed=7");
  EXPECT_EQ(outcome("mn\r\n"), "CLIENT_ERROR unauthenticated consumed=4");
  EXPECT_EQ(outcome("add k 0 0 1\r\nx\r\n"), "CLIENT_ERROR unauthenticated consumed=13");
  EXPECT_EQ(outcome("set k 0 0\r\n"), "CLIENT_ERROR unauthenticated consumed=11");
  EXPECT_EQ(outcome("set k 0 0 x\r\n"), "CLIENT_ERROR unauthenticated consumed=13");
  EXPECT_EQ(outcome("set k 0 0 5\r\nalice\r\n"),
            "CLIENT_ERROR bad authentication token format consumed=20");
  EXPECT_EQ(outcome("set k 0 0 3\r\nab\r\n\r\n"),
            "CLIENT_ERROR bad command line termination consumed=18");
  EXPECT_EQ(outcome("set k 0 0 99999\r\n"), "CLIENT_ERROR auth token too long consumed=17");
}

TEST_F(Authenticate, WaitsForWholeRequestsAndClosesOnJunk) {
  EXPECT_EQ(outcome(""), "need_more");
  EXPECT_EQ(outcome("s"), "need_more");
  EXPECT_EQ(outcome("set k 0 0 16"), "need_more");
  EXPECT_EQ(outcome("set k 0 0 16\r\nalice wonder"), "need_more");
  EXPECT_EQ(outcome(std::string(2048, 'x')), "need_more");
  EXPECT_EQ(outcome(std::string(2049, 'x')), "close");
}

}  // namespace
}  // namespace gpuhash::server::net
