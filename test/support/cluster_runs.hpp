// Runs of the real fiber command on the cluster of test/cluster, with the
// profile test-cluster its up leaves, as the suite "kubernetes" checks
// them: a run's pods by phase (RunObjects, test_cluster.hpp, reads them
// with the admin account) and the check that a run left nothing behind.
#pragma once

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/labels.hpp"
#include "kube/api_client.hpp"
#include "support/fiber_command.hpp"
#include "support/test_cluster.hpp"

namespace fiber::testing {

inline int PodsIn(const std::string& run_id, const std::string& phase) {
  int n = 0;
  for (const auto& pod : RunObjects(kube::kPods, run_id)) n += pod["status"].value("phase", "") == phase;
  return n;
}

/// fiber run of the test cluster's profile.
inline std::vector<std::string> RunArgs(std::vector<std::string> rest) {
  return ProfileRun(ClusterValue("FIBER_CLUSTER_FIBER_CONFIG"), "test-cluster", std::move(rest));
}

/// Checks, when a test ends, that its run left nothing in the namespace:
/// no pod (running or not) and not its Secret.
struct NothingLeft {
  Fiber& fiber;
  std::string run_id;
  ~NothingLeft() {
    if (run_id.empty()) run_id = LastRun();
    if (run_id.empty()) return;
    const bool gone = eventually([&] {
      return RunObjects(kube::kPods, run_id).empty() && RunObjects(kube::kSecrets, run_id).empty();
    }, 60);
    CHECK_MESSAGE(gone, "run " << run_id << " left pods or its Secret in the namespace");
    if (!gone) (void)fiber.Run({"stop", run_id});
  }
  std::string LastRun() {
    const nlohmann::json runs = fiber.Ps();
    return runs.empty() ? "" : runs.back()["id"].get<std::string>();
  }
};

}  // namespace fiber::testing
