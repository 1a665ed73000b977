// Which Slurm nodes are this machine, from sinfo's lines: the check that
// keeps a master on a loopback address from sending worker jobs to nodes
// that cannot reach it.
#include <doctest/doctest.h>

#include "backend/master_reach.hpp"
#include "backend/slurm/partition_nodes.hpp"

using fiber::backend::EndpointHost;
using fiber::backend::IsThisMachine;
using fiber::backend::ParsePartitionNodes;
using fiber::backend::SlurmNode;
using fiber::backend::ThisMachineOnly;

namespace {

const char* kSinfo =
    "batch*|node01|node01|10.0.0.1\n"
    "batch*|node02|node02.lab|node02\n"
    "gpu|gpu01|gpu01|10.0.1.1\n"
    "garbage\n"
    "\n";

}  // namespace

TEST_CASE("a partition's nodes, the default partition's when none is named") {
  const auto batch = ParsePartitionNodes(kSinfo, "");
  REQUIRE(batch.size() == 2);
  CHECK(batch[0].name == "node01");
  CHECK(batch[0].address == "10.0.0.1");
  CHECK(batch[1].hostname == "node02.lab");
  CHECK(ParsePartitionNodes(kSinfo, "batch").size() == 2);
  const auto gpu = ParsePartitionNodes(kSinfo, "gpu");
  REQUIRE(gpu.size() == 1);
  CHECK(gpu[0].name == "gpu01");
  CHECK(ParsePartitionNodes(kSinfo, "absent").empty());
}

TEST_CASE("a node is this machine by a loopback address or by this machine's name") {
  CHECK(IsThisMachine({"localhost", "localhost", "127.0.0.1"}, "vm"));
  CHECK(IsThisMachine({"n1", "n1", "::1"}, "vm"));
  CHECK(IsThisMachine({"login1", "login1", "10.0.0.9"}, "login1.lab.example"));
  CHECK(IsThisMachine({"n1", "login1.lab.example", "10.0.0.9"}, "login1.lab.example"));
  CHECK_FALSE(IsThisMachine({"node01", "node01", "10.0.0.1"}, "login1"));
  CHECK_FALSE(IsThisMachine({"node01", "node01", "node01"}, "node011"));
}

TEST_CASE("a master endpoint's host, and whether it names this machine only") {
  CHECK(EndpointHost("tcp://127.0.0.1:7000") == "127.0.0.1");
  CHECK(EndpointHost("tcp://trainer.lab:7000") == "trainer.lab");
  CHECK(EndpointHost("tcp://[::1]:7000") == "[::1]");
  for (const char* host : {"127.0.0.1", "127.0.0.3", "localhost", "[::1]", "0.0.0.0", "*", "[::]"})
    CHECK_MESSAGE(ThisMachineOnly(host), host);
  for (const char* host : {"10.0.0.1", "trainer.lab", "128.0.0.1"}) CHECK_MESSAGE(!ThisMachineOnly(host), host);
}
