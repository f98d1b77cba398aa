# Every dependency comes from a Debian package (scripts/install-deps.sh).
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_package(absl REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(CURL REQUIRED)
find_package(SQLite3 REQUIRED)
# dlpd's HTTPS (server/http/transport.cc) and its token hashes (libcrypto's SHA-256).
find_package(OpenSSL REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
# Optional: the web UI's files are embedded gzipped when zlib is there (cmake/WebUi.cmake).
find_package(ZLIB)
set(DLP_HAVE_ZLIB ${ZLIB_FOUND})
if(DLP_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
