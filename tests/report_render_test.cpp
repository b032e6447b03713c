// The HTML reports as a browser shows them: headless Chromium (Debian's chromium) loads
// the E1 report and a `run --report` page; the test fails on a JavaScript error or an
// image that does not load, and checks that E1's plot draws the published series.
// Skipped, saying so, without chromium or gnuplot.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/cli.h"
#include "util/subprocess.h"

namespace schedlab {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// $SCHEDLAB_CHROMIUM, else chromium or chromium-browser from PATH; empty if none runs.
std::string chromium() {
  std::vector<std::string> names = {"chromium", "chromium-browser"};
  if (const char* env = std::getenv("SCHEDLAB_CHROMIUM")) names.insert(names.begin(), env);
  for (const std::string& n : names)
    if (run_program({n, "--version"}, "").exit_status == 0) return n;
  return "";
}

bool has_gnuplot() {
  return run_program({"gnuplot", "--version"}, "").exit_status == 0;
}

// Before anything else runs, record every error (script errors, and resources that fail
// to load, which fire "error" on their element); once loaded, count the images and the
// broken ones and write the result where --dump-dom shows it.
constexpr const char* kWatch =
    "<script>window.__errors=[];window.addEventListener('error',function(e){"
    "window.__errors.push(e.message||('failed to load '+(e.target&&e.target.tagName)));},true);"
    "</script>";
constexpr const char* kCheck =
    "<script>window.addEventListener('load',function(){var n=0,broken=0;"
    "for(const i of document.images){n++;if(!i.complete||i.naturalWidth===0)broken++;}"
    "document.body.setAttribute('data-check','images='+n+' broken='+broken+' errors='+"
    "window.__errors.length+' '+window.__errors.join('|'));});</script>";

struct PageCheck {
  int images = -1, broken = -1, errors = -1;
  std::string detail;
};

// Loads a copy of `page` with the watcher in it; the copy sits beside the page so that
// relative links resolve as they would for the page itself.
PageCheck load(const std::string& browser, const fs::path& page) {
  std::string html = read_file(page);
  const auto head = html.find("<head>");
  const auto body_end = html.rfind("</body>");
  EXPECT_NE(head, std::string::npos);
  EXPECT_NE(body_end, std::string::npos);
  html.insert(body_end, kCheck);
  html.insert(head + 6, kWatch);
  const fs::path copy = fs::path(page).replace_extension(".checked.html");
  std::ofstream(copy, std::ios::binary) << html;
  const fs::path profile = page.parent_path() / "chromium-profile";
  fs::remove_all(profile);
  const ProgramResult r = run_program(
      {browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
       "--disable-component-update", "--disable-sync", "--no-first-run",
       "--user-data-dir=" + profile.string(), "--virtual-time-budget=10000", "--dump-dom",
       "file://" + fs::absolute(copy).string()},
      "");
  PageCheck c;
  const std::regex check(R"re(data-check="images=(\d+) broken=(\d+) errors=(\d+) ?([^"]*)")re");
  std::smatch m;
  if (std::regex_search(r.out, m, check)) {
    c.images = std::stoi(m[1]);
    c.broken = std::stoi(m[2]);
    c.errors = std::stoi(m[3]);
    c.detail = m[4];
  } else {
    c.detail = "no result in the dumped page; chromium said: " + r.err.substr(0, 2000);
  }
  return c;
}

TEST(ReportRender, TheE1ReportAndARunReportLoadWithoutErrorsAndEveryImage) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  const fs::path dir = fs::temp_directory_path() / "schedlab-test-render";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ostringstream out, err;
  ASSERT_EQ(cli_main({"reproduce", "E1", "--quick", "--out", dir.string(), "--scenarios",
                      (fs::path(SCHEDLAB_SOURCE_DIR) / "scenarios").string()},
                     out, err),
            0)
      << err.str();
  const PageCheck e1 = load(browser, dir / "report.html");
  EXPECT_EQ(e1.images, 9) << e1.detail;  // three plots, and two timelines a part
  EXPECT_EQ(e1.broken, 0) << e1.detail;
  EXPECT_EQ(e1.errors, 0) << e1.detail;
  // E1 A's plot draws table A beside the simulated medians: a key entry per series.
  const std::string svg = read_file(dir / "e1-x264-ultrafast.svg");
  for (const char* series :
       {"bfs-0.232", "cfs-2.6.31", "bfs-0.232 (published)", "cfs-2.6.31 (published)"})
    EXPECT_NE(svg.find(std::string("<text>") + series + "</text>"), std::string::npos) << series;
  EXPECT_NE(read_file(dir / "e1-x264-ultrafast.gp").find("$p0 << EOD\n1 124.79\n"),
            std::string::npos);

  std::ostringstream o2, e2;
  ASSERT_EQ(cli_main({"run", (fs::path(SCHEDLAB_SOURCE_DIR) / "scenarios" / "demo.json").string(),
                      "--report", (dir / "run.html").string()},
                     o2, e2),
            0)
      << e2.str();
  const PageCheck run = load(browser, dir / "run.html");
  EXPECT_EQ(run.images, 1) << run.detail;  // the timeline
  EXPECT_EQ(run.broken, 0) << run.detail;
  EXPECT_EQ(run.errors, 0) << run.detail;
}

// The check itself can fail: a page with a broken image and a script error.
TEST(ReportRender, TheCheckSeesABrokenImageAndAScriptError) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  const fs::path dir = fs::temp_directory_path() / "schedlab-test-render-bad";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "bad.html")
      << "<!DOCTYPE html><html><head><title>t</title></head><body>"
         "<img src=\"missing.svg\"><img src=\"data:image/svg+xml;base64,PHN2Zz4=\">"
         "<script>undefined_function();</script></body></html>";
  const PageCheck c = load(browser, dir / "bad.html");
  EXPECT_EQ(c.images, 2) << c.detail;
  EXPECT_EQ(c.broken, 2) << c.detail;  // not found, and not an SVG with a size
  EXPECT_GE(c.errors, 2) << c.detail;  // the script, and the image that failed to load
}

}  // namespace
}  // namespace schedlab
