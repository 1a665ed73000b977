// YAML as the Kubernetes API reads it: a template's unquoted values mean to
// fiber what they mean to kubectl.
#include <doctest/doctest.h>

#include "kube/yaml_json.hpp"
#include "support/manifests.hpp"

using nlohmann::json;

TEST_CASE("a template's unquoted values mean what kubectl reads: 0400 is octal, yes is true, 500m a string") {
  const json j = ReadBack(
      "mode: 0400\nhex: 0x10\nport: 8080\nratio: 0.5\nenabled: yes\ndisabled: False\ncpu: 500m\n"
      "quoted: \"1\"\ntagged: !!str 5\nempty:\ntilde: ~\nversion: 1.2.3\nnegative: -3\n"
      "on: unquoted key\n'off': quoted key\nexponent: 1e3\n08: 09\nlead: _1\nbinary: 0b-1_0\ndot: .5_\n");
  CHECK(j == json({{"mode", 256}, {"hex", 16}, {"port", 8080}, {"ratio", 0.5}, {"enabled", true},
                   {"disabled", false}, {"cpu", "500m"}, {"quoted", "1"}, {"tagged", "5"},
                   {"empty", nullptr}, {"tilde", nullptr}, {"version", "1.2.3"}, {"negative", -3},
                   {"true", "unquoted key"}, {"off", "quoted key"}, {"exponent", 1000}, {"8", 9},
                   {"lead", "_1"}, {"binary", -2}, {"dot", ".5_"}}));
}
