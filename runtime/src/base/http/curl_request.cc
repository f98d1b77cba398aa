#include "base/http/curl_request.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/http/curl_library.h"

namespace dlp::base {
namespace {

// The answer as it arrives: whole (no sink), or cut into lines for the sink
// when the status is 2xx (an error's body is kept whole).
struct Receiver {
  const CurlLibrary* lib;
  CURL* curl;
  const HttpRequest* request;
  HttpReply reply;
  size_t received = 0;
  bool too_long = false;
};

size_t Receive(char* data, size_t size, size_t count, void* context) {
  auto* r = static_cast<Receiver*>(context);
  const size_t bytes = size * count;
  HttpReply& reply = r->reply;
  if (reply.code == 0) r->lib->easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &reply.code);
  const LineSink* sink = reply.code >= 200 && reply.code < 300 ? r->request->sink : nullptr;
  r->received += bytes;
  if ((sink == nullptr ? r->received : reply.body.size() + bytes) > r->request->max_body_bytes) {
    r->too_long = true;
    return 0;  // ends the transfer (CURLE_WRITE_ERROR)
  }
  reply.body.append(data, bytes);
  if (sink == nullptr) return bytes;
  size_t start = 0;
  for (size_t nl; (nl = reply.body.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (!(*sink)(std::string_view(reply.body).substr(start, nl - start))) {
      reply.stopped = true;
      return 0;
    }
  }
  reply.body.erase(0, start);
  return bytes;
}

curl_blob Blob(const std::string& pem) {
  return curl_blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
}

long Milliseconds(absl::Duration d) { return static_cast<long>(absl::ToInt64Milliseconds(d)); }

}  // namespace

absl::StatusOr<HttpReply> PerformHttpRequest(const HttpRequest& request, std::string_view peer) {
  absl::StatusOr<const CurlLibrary*> loaded = LoadCurl();
  if (!loaded.ok()) return loaded.status();
  const CurlLibrary* lib = *loaded;
  CURL* curl = lib->easy_init();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  curl_slist* headers = nullptr;
  for (const std::string& header : request.headers) {
    headers = lib->slist_append(headers, header.c_str());
  }
  lib->easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  lib->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  lib->easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (!request.body.empty()) {
    lib->easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    lib->easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  }
  const TlsOptions& tls = request.tls;
  curl_blob ca = Blob(tls.ca_pem), cert = Blob(tls.client_cert_pem),
            key = Blob(tls.client_key_pem);
  if (!tls.ca_file.empty()) lib->easy_setopt(curl, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.ca_pem.empty()) lib->easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
  if (tls.insecure_skip_verify) {
    lib->easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    lib->easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!tls.client_cert_file.empty()) {
    lib->easy_setopt(curl, CURLOPT_SSLCERT, tls.client_cert_file.c_str());
  }
  if (!tls.client_cert_pem.empty()) lib->easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
  if (!tls.client_key_file.empty()) {
    lib->easy_setopt(curl, CURLOPT_SSLKEY, tls.client_key_file.c_str());
  }
  if (!tls.client_key_pem.empty()) lib->easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
  Receiver receiver{lib, curl, &request, {}};
  lib->easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Receive);
  lib->easy_setopt(curl, CURLOPT_WRITEDATA, &receiver);
  lib->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, Milliseconds(request.connect_timeout));
  if (request.timeout != absl::InfiniteDuration()) {
    lib->easy_setopt(curl, CURLOPT_TIMEOUT_MS, Milliseconds(request.timeout));
  }
  if (request.idle != absl::InfiniteDuration()) {
    lib->easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    lib->easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                     std::max(1L, static_cast<long>(absl::ToInt64Seconds(request.idle))));
  }
  lib->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: threads
  const CURLcode rc = lib->easy_perform(curl);
  HttpReply& reply = receiver.reply;
  if (reply.code == 0) lib->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.code);
  lib->slist_free_all(headers);
  lib->easy_cleanup(curl);
  if (receiver.too_long) {
    return absl::ResourceExhaustedError(absl::StrCat(
        std::string(peer), " sent more than ", request.max_body_bytes,
        request.sink != nullptr ? " bytes in one line" : " bytes", " (", request.method, " ",
        request.url, ")"));
  }
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && reply.stopped)) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach ", std::string(peer), ": ", lib->easy_strerror(rc)));
  }
  return std::move(reply);
}

}  // namespace dlp::base
