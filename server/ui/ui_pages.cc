#include "server/ui/ui_pages.h"

#include "absl/strings/str_cat.h"

namespace dlp::server {
namespace {

std::string Page(absl::string_view title, absl::string_view body) {
  return absl::StrCat("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
                      "<meta name=\"viewport\" content=\"width=device-width\"><title>",
                      HtmlEscape(title),
                      " - dlp</title>\n<link rel=\"stylesheet\" href=\"/login.css\">"
                      "</head>\n<body>\n<h1>", HtmlEscape(title),
                      "</h1>\n", body, "</body></html>\n");
}

}  // namespace

std::string HtmlEscape(absl::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SignInPage(absl::string_view problem) {
  return Page("Sign in",
              absl::StrCat("<p>", HtmlEscape(problem), "</p>\n",
                           "<p>Run <code>dlp ui</code> for a new sign-in link, or sign in with "
                           "a token (<code>dlp admin token create</code>, or dlpd.token in the "
                           "state folder for the owner):</p>\n",
                           "<form method=\"post\" action=\"/login\">\n",
                           "<label>Token <input type=\"password\" name=\"token\" "
                           "autocomplete=\"off\" required></label>\n",
                           "<button type=\"submit\">Sign in</button>\n</form>\n"));
}

std::string NotFoundPage(absl::string_view path) {
  return Page("Not found", absl::StrCat("<p>Nothing at ", HtmlEscape(path),
                                        ". <a href=\"/\">Back to the jobs</a>.</p>\n"));
}

std::string UiNotBuiltPage() {
  return Page("dlp: the web UI is not built",
              "<p>This dlpd was built without its web UI: the build found no Node.js/npm or no "
              "<code>web/</code> folder. The API under <code>/v1/</code> works as usual.</p>\n"
              "<p>To build the UI, install Node.js and npm (<code>scripts/install-deps.sh</code>), "
              "then configure with <code>-DDLP_WITH_UI=ON</code> and rebuild <code>dlpd</code> "
              "(see docs/ui.md).</p>\n");
}

}  // namespace dlp::server
