#include "image/registry_push.hpp"

#include "image/media_types.hpp"
#include "image/registry_session.hpp"

namespace fiber::image {

namespace {

// The registry's words for a failed call: its {"errors":[{"message"}]}.
std::string RegistryMessage(const http::Response& response) {
  std::string text = "HTTP " + std::to_string(response.status);
  const auto at = response.body.find("\"message\":\"");
  if (at != std::string::npos) {
    const auto from = at + 11;
    text += ": " + response.body.substr(from, response.body.find('"', from) - from);
  }
  return text;
}

bool Failed(const std::string& what, const http::Response& response, const std::string& registry,
            std::string* err) {
  *err = registry + " did not take the " + what + ": " + RegistryMessage(response);
  return false;
}

bool PushBlob(RegistrySession& session, const BlobPush& push, const std::string& file,
              const std::string& contents, bool* uploaded, std::string* err) {
  const std::string repo = "/v2/" + session.where().repository;
  http::Request head;
  head.method = "HEAD";
  head.url = repo + "/blobs/" + push.blob.digest;
  http::Response response;
  if (!session.Send(head, &response, err)) return false;
  *uploaded = false;
  if (response.status == 200) return true;

  http::Request start;
  start.method = "POST";
  start.url = repo + "/blobs/uploads/";
  if (!session.Send(start, &response, err)) return false;
  const std::string location = response.header("Location");
  if (response.status != 202 || location.empty())
    return Failed(push.what, response, session.where().registry, err);
  http::Request put;
  put.method = "PUT";
  put.url = (location[0] == '/' ? session.where().BaseUrl() + location : location) +
            (location.find('?') == std::string::npos ? "?" : "&") +
            "digest=" + http::Escape(push.blob.digest);
  put.headers = {"Content-Type: application/octet-stream"};
  if (!file.empty()) put.body_file = file;
  else put.body = contents;
  put.timeout_ms = 0;
  if (!session.Send(put, &response, err)) return false;
  if (response.status != 201) return Failed(push.what, response, session.where().registry, err);
  *uploaded = true;
  return true;
}

}  // namespace

bool Push(const Image& img, const RegistryReference& to, const Credentials& credentials,
          PushReport* report, std::string* err) {
  *report = PushReport{};
  RegistrySession session(to, credentials);
  report->blobs = {{"layer", img.layer, false}, {"config", img.config_blob, false}};
  if (!PushBlob(session, report->blobs[0], img.layer_file, "", &report->blobs[0].uploaded, err) ||
      !PushBlob(session, report->blobs[1], "", img.config, &report->blobs[1].uploaded, err))
    return false;
  const std::string tag = to.tag.empty() ? img.Tag() : to.tag;
  http::Request put;
  put.method = "PUT";
  put.url = "/v2/" + to.repository + "/manifests/" + tag;
  put.headers = {std::string("Content-Type: ") + kManifestMediaType};
  put.body = img.manifest;
  http::Response response;
  if (!session.Send(put, &response, err)) return false;
  if (response.status != 201) return Failed("manifest", response, to.registry, err);
  report->reference = to.registry + "/" + to.repository + ":" + tag + "@" + img.manifest_blob.digest;
  return true;
}

}  // namespace fiber::image
