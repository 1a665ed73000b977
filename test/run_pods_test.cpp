// Where a run finds its cluster: the settings choose the kubeconfig file,
// context and namespace; the environment says the rest, as for kubectl.
// A run's pods and Secret on a real API server (fiber ps, stop, the
// backend's own pods): kube_backend_test.cpp.
#include <doctest/doctest.h>

#include <map>

#include "backend/kubernetes/run_pods.hpp"

TEST_CASE("a run's settings and the environment say where to look") {
  fiber::config::Settings settings;
  settings.kubeconfig = "/etc/k.yaml";
  settings.context = "c";
  settings.namespace_name = "n";
  const std::map<std::string, std::string> env = {{"KUBECONFIG", "/a:/b"}, {"HOME", "/home/u"},
                                                  {"KUBERNETES_SERVICE_HOST", "10.0.0.1"}};
  const fiber::kube::CredentialSearch search =
      fiber::backend::SearchFor(settings, [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      });
  CHECK(search.kubeconfig == "/etc/k.yaml");
  CHECK(search.context == "c");
  CHECK(search.namespace_name == "n");
  CHECK(search.kubeconfig_env == "/a:/b");
  CHECK(search.home == "/home/u");
  CHECK(search.in_cluster.service_host == "10.0.0.1");
  CHECK(search.in_cluster.service_port.empty());
}
