// The few pages dlpd writes itself rather than the front end: sign-in failed
// (with a token form), not found, and the page a dlpd built without the UI
// serves. Plain HTML: no script or style, so the CSP allows them as they are.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace dlp::server {

// A sign-in page saying `problem` (text, escaped here), with a form that
// posts a token to /login.
std::string SignInPage(absl::string_view problem);
std::string NotFoundPage(absl::string_view path);
// What `/` shows when dlpd was built without the front end.
std::string UiNotBuiltPage();

// `text` with &, <, >, " and ' escaped for HTML.
std::string HtmlEscape(absl::string_view text);

}  // namespace dlp::server
