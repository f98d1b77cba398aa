# The web UI (docs/ui.md). DLP_WITH_UI=AUTO builds the front end in web/ when
# npm, web/package-lock.json and web/node_modules are there (`npm ci --offline`, `npm run build`
# into web/dist/); ON requires them; OFF never builds it. Either way the tool
# dlp_embed_ui compiles web/dist into dlpd as a generated source (gzipped
# copies when zlib is found): a dlpd without it serves a page that says how to
# build the UI. Sets DLP_UI_ASSETS_SOURCE and the target dlp_ui_embed for dlp_server.
set(dlp_web_dir ${CMAKE_SOURCE_DIR}/web)
set(dlp_ui_src ${CMAKE_SOURCE_DIR}/server/ui)

add_executable(dlp_embed_ui ${dlp_ui_src}/embed_ui_main.cc ${dlp_ui_src}/asset_encoding.cc)
target_include_directories(dlp_embed_ui PRIVATE
  ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/generated)
target_link_libraries(dlp_embed_ui PRIVATE absl::strings dlp_warnings)
if(DLP_HAVE_ZLIB)
  target_link_libraries(dlp_embed_ui PRIVATE ZLIB::ZLIB)
endif()
# A build tool, not a program to install or find beside dlp.
set_target_properties(dlp_embed_ui PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tools)

set(DLP_HAVE_UI 0)
if(NOT DLP_WITH_UI STREQUAL "OFF")
  # scripts/build.sh passes the npm that scripts/deps/install-npm.sh installed
  # where none is on PATH.
  find_program(DLP_NPM npm)
  # web/node_modules: scripts/install-deps.sh has put the locked packages in
  # npm's cache, so that the build's `npm ci --offline` needs no network.
  if(DLP_NPM AND EXISTS ${dlp_web_dir}/package-lock.json AND EXISTS ${dlp_web_dir}/node_modules)
    set(DLP_HAVE_UI 1)
  elseif(DLP_WITH_UI STREQUAL "ON")
    message(FATAL_ERROR "DLP_WITH_UI=ON needs npm, web/package-lock.json and web/node_modules "
                        "(scripts/install-deps.sh installs them)")
  endif()
endif()

set(dlp_ui_depends "")
set(dlp_ui_dist ${CMAKE_BINARY_DIR}/web-ui-not-built)  # absent: an empty table
if(DLP_HAVE_UI)
  # web/'s own files, not node_modules/ or dist/.
  file(GLOB_RECURSE dlp_web_sources CONFIGURE_DEPENDS ${dlp_web_dir}/src/* ${dlp_web_dir}/public/*)
  list(FILTER dlp_web_sources EXCLUDE REGEX "/src/generated/")
  file(GLOB dlp_web_top CONFIGURE_DEPENDS ${dlp_web_dir}/*.json ${dlp_web_dir}/*.html
    ${dlp_web_dir}/*.mjs ${dlp_web_dir}/*.js ${dlp_web_dir}/*.ts)
  list(APPEND dlp_web_sources ${dlp_web_top})
  # The API's schema, from which the build generates the UI's types.
  list(APPEND dlp_web_sources ${CMAKE_SOURCE_DIR}/schema/api.schema.json)
  set(dlp_ui_stamp ${CMAKE_BINARY_DIR}/web-ui.stamp)
  # node_modules is installed again only when package-lock.json is newer than
  # npm's record of it (node_modules/.package-lock.json, which `npm ci` writes
  # last): scripts/install-deps.sh has just installed it on a fresh clone.
  add_custom_command(OUTPUT ${dlp_ui_stamp}
    COMMAND sh -c "[ node_modules/.package-lock.json -nt package-lock.json ] || \"$0\" ci --offline --no-audit --no-fund" ${DLP_NPM}
    COMMAND ${DLP_NPM} run build
    COMMAND ${CMAKE_COMMAND} -E touch ${dlp_ui_stamp}
    WORKING_DIRECTORY ${dlp_web_dir}
    DEPENDS ${dlp_web_sources}
    COMMENT "Building the web UI (npm ci --offline where package-lock.json changed; npm run build)"
    VERBATIM)
  set(dlp_ui_depends ${dlp_ui_stamp})
  set(dlp_ui_dist ${dlp_web_dir}/dist)
  message(STATUS "Web UI: built from web/ with ${DLP_NPM}")
else()
  message(STATUS "Web UI: not built (DLP_WITH_UI=${DLP_WITH_UI}; needs npm and web/package-lock.json)")
endif()

set(DLP_UI_ASSETS_SOURCE ${CMAKE_BINARY_DIR}/generated/ui_assets_data.cc)
# Runs every build (the files of web/dist are not known here); the tool
# rewrites its output only when it changes, and as a byproduct (Ninja's restat)
# an unchanged file compiles nothing again. Out of the unity batches, so that a
# changed UI recompiles this file alone.
add_custom_target(dlp_ui_embed
  COMMAND dlp_embed_ui ${dlp_ui_dist} ${DLP_UI_ASSETS_SOURCE}
  BYPRODUCTS ${DLP_UI_ASSETS_SOURCE}
  DEPENDS ${dlp_ui_depends}
  COMMENT "Embedding the web UI's files"
  VERBATIM)
set_source_files_properties(${DLP_UI_ASSETS_SOURCE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
