// http/host_header: which Host headers name a server, by how it was told to
// listen; a name a page could rebind to this machine is never one.
#include "http/host_header.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>

using fiber::http::NamesServer;
using fiber::http::ServerNames;

TEST_CASE("on loopback: addresses and localhost, with or without a port, in any case") {
  const auto names = ServerNames("127.0.0.1");
  for (const char* host : {"127.0.0.1", "127.0.0.1:9100", "[::1]:9100", "[::1]", "localhost", "LOCALHOST:9100",
                           "localhost.:9100", "10.0.0.5:9100"})
    CHECK_MESSAGE(NamesServer(host, names), host);
  for (const char* host : {"evil.example", "evil.example:9100", "127.0.0.1.evil.example", "localhost.evil.example",
                           "", ":9100", "[::1", "[::1]x", "[evil.example]:9100"})
    CHECK_FALSE_MESSAGE(NamesServer(host, names), host);
  char name[256] = {};
  REQUIRE(::gethostname(name, sizeof name - 1) == 0);
  if (std::string(name) != "localhost")  // not served beyond loopback
    CHECK(std::find(names.begin(), names.end(), std::string(name)) == names.end());
}

TEST_CASE("beyond loopback: also the name it was told and this machine's name") {
  CHECK(NamesServer("Trainer.Lab:9464", ServerNames("trainer.lab")));
  CHECK_FALSE(NamesServer("evil.example:9464", ServerNames("trainer.lab")));
  char name[256] = {};
  REQUIRE(::gethostname(name, sizeof name - 1) == 0);
  CHECK(NamesServer(std::string(name) + ":9464", ServerNames("0.0.0.0")));
  CHECK(NamesServer("[fd00::2]:9464", ServerNames("::")));
  CHECK_FALSE(NamesServer("evil.example", ServerNames("0.0.0.0")));
}
