// plan::apply on a real folder (a rooted Host over a temporary directory): atomic link and file
// steps, the rollback of a failed plan, and the preflight that refuses before changing anything.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "plan/apply.hpp"
#include "plan/render.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::plan {
namespace {

namespace fs = std::filesystem;

struct Image {
    test::TempDir tmp;
    host::Host host = make();
    host::Host make() const {
        fs::create_directories(tmp.path() / "usr/local/cuda-12.1");
        fs::create_directories(tmp.path() / "usr/local/cuda-12.4");
        fs::create_directory_symlink("/usr/local/cuda-12.1", tmp.path() / "usr/local/cuda");
        fs::create_directories(tmp.path() / "etc");
        std::ofstream(tmp.path() / "etc/conf") << "a\nb\nc\n";
        return *host::Host::rooted(tmp.path().string());
    }
    std::string link() const { return fs::read_symlink(tmp.path() / "usr/local/cuda").string(); }
    std::string conf() const {
        std::ifstream in(tmp.path() / "etc/conf");
        return {std::istreambuf_iterator<char>(in), {}};
    }
};

Plan three_steps(const host::Host& h) {
    Plan p;
    p.title = "test";
    p.steps.push_back(make_symlink(h, "/usr/local/cuda", "/usr/local/cuda-12.4", "repoint"));
    p.steps.push_back(edit_file("/etc/conf", "a\nb\nc\n", "a\nc\n", "drop b"));
    p.steps.push_back(remove_tree("/usr/local/cuda-12.1", "remove 12.1", "reinstall"));
    return p;
}

TEST(PlanApply, AllStepsApplied) {
    Image img;
    auto r = apply(img.host, three_steps(img.host));
    ASSERT_TRUE(r.ok()) << (r.preflight.empty() ? r.steps[*r.failed_step].message : r.preflight.front());
    EXPECT_EQ(img.link(), "/usr/local/cuda-12.4");
    EXPECT_EQ(img.conf(), "a\nc\n");
    EXPECT_FALSE(fs::exists(img.tmp.path() / "usr/local/cuda-12.1"));
    EXPECT_FALSE(fs::exists(img.tmp.path() / "usr/local/cuda-12.1.cudoctor-removed"));
}

TEST(PlanApply, FailureAtTheLastStepRollsEverythingBack) {
    Image img;
    ApplyOptions o;
    o.fail_at = 3;
    auto r = apply(img.host, three_steps(img.host), o);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.failed_step, 2u);
    EXPECT_TRUE(r.manual_undo.empty());
    EXPECT_EQ(r.steps[0].status, StepStatus::rolled_back);
    EXPECT_EQ(img.link(), "/usr/local/cuda-12.1");
    EXPECT_EQ(img.conf(), "a\nb\nc\n");
    EXPECT_TRUE(fs::is_directory(img.tmp.path() / "usr/local/cuda-12.1"));
}

TEST(PlanApply, ACommandThatRanCannotBeRolledBackSoItsUndoIsPrinted) {
    Image img;
    Plan p = three_steps(img.host);
    p.steps.insert(p.steps.begin(), run_command({"/bin/true"}, "run true", "run false", false, {}));
    p.steps.front().rooted_args = {"--root={root}"};  // the real /bin/true, which ignores it
    ApplyOptions o;
    o.fail_at = 3;
    auto r = apply(img.host, p, o);
    ASSERT_TRUE(r.preflight.empty()) << r.preflight.front();
    EXPECT_EQ(r.manual_undo, std::vector<std::string>{"run false"});
    EXPECT_EQ(img.link(), "/usr/local/cuda-12.1");
}

TEST(PlanApply, PreflightRefusesAFileChangedSinceThePlanAndAFolderInPlaceOfALink) {
    Image img;
    Plan p;
    p.steps.push_back(edit_file("/etc/conf", "something else\n", "x\n", "edit"));
    p.steps.push_back(make_symlink(img.host, "/usr/local/cuda-12.4", "/usr/local/cuda-12.1", "a folder"));
    auto r = apply(img.host, p);
    ASSERT_EQ(r.preflight.size(), 2u);
    const std::string image = " (inside the image " + img.host.root() + ")";
    EXPECT_EQ(r.preflight[0], "step 1: /etc/conf changed since the plan was made" + image + ": run the command again");
    EXPECT_EQ(r.preflight[1], "step 2: /usr/local/cuda-12.4 is a folder" + image + "; cudoctor will not replace it");
    EXPECT_EQ(img.conf(), "a\nb\nc\n");
}

TEST(PlanApply, LinksInTheImageNeverLeadAWriteOutOfIt) {
    Image img;
    fs::create_directory_symlink("/", img.tmp.path() / "etc/escape");  // "/" re-rooted: the image itself
    Plan p;
    p.steps.push_back(write_file(img.host, "/etc/escape/written-by-test", "x\n", "write"));
    auto r = apply(img.host, p);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(fs::exists(img.tmp.path() / "written-by-test"));
    EXPECT_FALSE(fs::exists("/written-by-test"));
}

TEST(PlanRender, DiffShowsRemovedBeforeAdded) {
    EXPECT_EQ(line_diff("a\nb\nc\n", "a\nB\nc\n"), "- b\n+ B\n");
    EXPECT_EQ(line_diff("x\n", "x\n"), "");
}

}  // namespace
}  // namespace cudoctor::plan
