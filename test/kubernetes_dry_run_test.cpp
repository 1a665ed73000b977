// The objects `fiber run --dry-run -o yaml` prints: YAML that kubectl reads
// back as the same objects, with every Secret's data redacted.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "backend/kubernetes/kubernetes_dry_run.hpp"
#include "support/manifests.hpp"

using nlohmann::json;

TEST_CASE("any text of YAML's awkward characters, printed as YAML, reads back the same") {
  // Seeded: the same 3000 strings every run.
  const std::vector<std::string> pieces = {
      ":", " ", "-", "#", "'", "\"", "\\", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@", "`",
      "?", "~", "\n", "\t", "\r", "0", "1", "x", ".", "e", "+", "_", "<<", "=", "true", "null", "\x7f",
      "\x01", "\xc2\x85", "\xe2\x80\xa8", "\xef\xbb\xbf", "\xc3\xa9", "\xf0\x9f\x98\x80"};
  std::uint32_t state = 12345;
  auto next = [&state] { return state = state * 1103515245 + 12345, (state >> 16) & 0x7fff; };
  json values = json::array();
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    for (std::uint32_t n = next() % 6; n > 0; --n) s += pieces[next() % pieces.size()];
    values.push_back(s);
  }
  const json object = {{"values", values}, {"keys", json::object()}};
  json with_keys = object;
  for (const json& v : values) with_keys["keys"][v.get<std::string>()] = 1;
  CHECK(ReadBack(fiber::backend::DryRunYaml({with_keys})) == with_keys);
}

TEST_CASE("a Secret's data is redacted in the dry run whichever field holds it") {
  const json secret = {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"data", {{"a", "c2VjcmV0"}}},
                       {"stringData", {{"b", "secret"}}}};
  const json printed = ReadBack(fiber::backend::DryRunYaml({secret}));
  CHECK(printed["data"]["a"] == "<redacted>");
  CHECK(printed["stringData"]["b"] == "<redacted>");
}
