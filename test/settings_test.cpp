// Settings from the environment: the defaults, what the variables change,
// CPU counts and memory sizes as users write them for Docker and
// Kubernetes, and the rules between settings. Errors naming the variable:
// assignment_test.cpp; other kinds of value: setting_kinds_test.cpp; files:
// config_file_test.cpp.
#include <doctest/doctest.h>

#include <map>

#include "config/resolve.hpp"
#include "support/environment_settings.hpp"

using fiber::config::Settings;
using fiber::testing::apply;

TEST_CASE("defaults hold when nothing is set") {
  Settings s;
  std::string err;
  REQUIRE(apply({}, &s, &err));
  CHECK(s.backend == "local");
  CHECK(s.listen_host == "127.0.0.1");
  CHECK(s.heartbeat_timeout > 2 * s.heartbeat_interval);
}

TEST_CASE("the environment overrides the defaults") {
  Settings s;
  std::string err;
  REQUIRE(apply({{"FIBER_HEARTBEAT_INTERVAL", "0.25"},
                 {"FIBER_HEARTBEAT_TIMEOUT", "3"},
                 {"FIBER_PREFETCH", "4"},
                 {"FIBER_LOG", "info"},
                 {"FIBER_LISTEN_HOST", "0.0.0.0"},
                 {"FIBER_LISTEN_PORT", "5555"}},
                &s, &err));
  CHECK(s.heartbeat_interval.count() == 250);
  CHECK(s.heartbeat_timeout.count() == 3000);
  CHECK(s.prefetch == 4);
  CHECK(s.verbose);
  CHECK(s.listen_host == "0.0.0.0");
  CHECK(s.listen_port == 5555);
}

TEST_CASE("workers are told advertise_host when it is set, else listen_host") {
  Settings s;
  std::string err;
  REQUIRE(apply({{"FIBER_LISTEN_HOST", "0.0.0.0"}}, &s, &err));
  CHECK(fiber::config::AdvertisedHost(s) == "0.0.0.0");
  REQUIRE(apply({{"FIBER_LISTEN_HOST", "0.0.0.0"}, {"FIBER_ADVERTISE_HOST", "trainer.lab"}}, &s, &err));
  CHECK(s.listen_host == "0.0.0.0");
  CHECK(fiber::config::AdvertisedHost(s) == "trainer.lab");
}

TEST_CASE("CPU counts are read as Docker and Kubernetes write them") {
  const std::map<std::string, int> good = {
      {"2", 2000}, {"0.5", 500}, {".5", 500}, {"500m", 500}, {"1.25", 1250},
      {"0.001", 1}, {"0", 0},    {"4096", 4096000},
  };
  for (const auto& [text, millis] : good) {
    Settings s;
    std::string err;
    CHECK_MESSAGE(apply({{"FIBER_CPU", text}}, &s, &err), err);
    CHECK_MESSAGE(s.cpu_millis == millis, text);
  }
  for (const std::string text : {"-1", "1e3", "0.0005", "0.5m", "4097", "m", "two", " 2", "2 cores"}) {
    Settings s;
    std::string err;
    CHECK_FALSE(apply({{"FIBER_CPU", text}}, &s, &err));
    CHECK(err == "FIBER_CPU='" + text +
                     "' is not a number of CPUs from 0 to 4096, to a thousandth (e.g. 2, 0.5 or 500m)");
  }
}

TEST_CASE("memory sizes are read as Docker and Kubernetes write them, in MiB") {
  const std::map<std::string, std::int64_t> good = {
      {"512Mi", 512},  {"2Gi", 2048}, {"1.5Gi", 1536},    {"1Ti", 1 << 20}, {"1024Ki", 1},
      {"256m", 256},   {"1024k", 1},  {"1024K", 1},       {"2g", 2048},     {"1024", 1024},
      {"1G", 954},     {"500M", 477}, {"1k", 1},          {"0", 0},
  };
  for (const auto& [text, mib] : good) {
    Settings s;
    std::string err;
    CHECK_MESSAGE(apply({{"FIBER_MEMORY", text}}, &s, &err), err);
    CHECK_MESSAGE(s.memory_mib == mib, text);
  }
  for (const std::string text : {"2 GB", "-1", "1.2.3", "Mi", "1Pi", "1 Gi", "1e3Mi"}) {
    Settings s;
    std::string err;
    CHECK_FALSE(apply({{"FIBER_MEMORY", text}}, &s, &err));
    CHECK(err == "FIBER_MEMORY='" + text +
                     "' is not a size such as 512Mi, 2Gi, 2GB or 256m (a bare number is MiB)");
  }
  Settings s;
  std::string err;
  CHECK_FALSE(apply({{"FIBER_MEMORY", "1025Ti"}}, &s, &err));
  CHECK(err == "FIBER_MEMORY='1025Ti' is more than 1024Ti");
}

TEST_CASE("master: cluster is refused on a backend that cannot place a master, naming those that can") {
  Settings s;
  std::string err;
  CHECK_FALSE(apply({{"FIBER_BACKEND", "docker"}, {"FIBER_MASTER", "cluster"}}, &s, &err));
  CHECK(err == "master: cluster (from FIBER_MASTER) runs the program in the cluster beside its workers: it "
               "needs backend kubernetes or slurm, not docker");
  REQUIRE(apply({{"FIBER_BACKEND", "slurm"}, {"FIBER_MASTER", "cluster"}}, &s, &err));
  CHECK(s.master_in_cluster);
}
