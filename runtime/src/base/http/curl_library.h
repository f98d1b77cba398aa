// libcurl, loaded when first needed. Only a Slurm context with the REST transport
// and the Kubernetes backend use it, while linking it would make every dlp
// process load libcurl and its dependencies (GnuTLS, Kerberos, LDAP, SSH, ...):
// about 4 ms of dynamic loading and constructors per command, most of a
// scripted `dlp submit`.
#pragma once

#include <curl/curl.h>

#include "absl/status/statusor.h"

namespace dlp::base {

// The libcurl functions dlp calls, with libcurl's own signatures.
struct CurlLibrary {
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// Loads libcurl.so.4 and runs curl_global_init once per process; later calls return
// the same table. Thread-safe. Unavailable (naming the library) when it cannot be loaded.
absl::StatusOr<const CurlLibrary*> LoadCurl();

}  // namespace dlp::base
