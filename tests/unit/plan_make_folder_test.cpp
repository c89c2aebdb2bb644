// plan::make_folder applied on a real folder (a rooted Host over a temporary directory): later
// steps write into the folder it makes, a rollback takes the folder away again, and preflight
// still refuses what no step makes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "plan/apply.hpp"
#include "plan/render.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test::plan_make_folder {

namespace fs = std::filesystem;

struct Machine {
    TempDir tmp;
    host::Host host = make();
    host::Host make() const {
        fs::create_directories(tmp.path() / "opt/modules");
        return *host::Host::rooted(tmp.path().string());
    }
};

/// What a preflight line adds about a path of the image.
std::string inside(const Machine& m) { return " (inside the image " + m.host.root() + ")"; }

plan::Plan module_plan(const host::Host& h, const std::string& dir) {
    plan::Plan p;
    p.title = "modules";
    p.steps.push_back(plan::make_folder(dir + "/cuda", "make the module folder"));
    p.steps.push_back(plan::write_file(h, dir + "/cuda/12.4", "#%Module\n", "module 12.4"));
    p.steps.push_back(plan::write_file(h, dir + "/cuda/12.1", "#%Module\n", "module 12.1"));
    return p;
}

TEST(PlanMakeFolder, LaterStepsWriteIntoTheFolderItMakes) {
    Machine m;
    const auto p = module_plan(m.host, "/opt/modules");
    EXPECT_EQ(p.steps[0].shell, "mkdir /opt/modules/cuda");
    EXPECT_EQ(p.steps[0].undo, "rmdir /opt/modules/cuda");
    EXPECT_TRUE(p.touches_system());
    const auto r = plan::apply(m.host, p);
    ASSERT_TRUE(r.ok()) << (r.preflight.empty() ? r.steps[*r.failed_step].message : r.preflight.front());
    EXPECT_TRUE(fs::is_directory(m.tmp.path() / "opt/modules/cuda"));
    EXPECT_TRUE(fs::is_regular_file(m.tmp.path() / "opt/modules/cuda/12.4"));
    EXPECT_TRUE(fs::is_regular_file(m.tmp.path() / "opt/modules/cuda/12.1"));
    EXPECT_EQ(plan::to_json(p)["steps"][0]["kind"], "make_folder");
}

TEST(PlanMakeFolder, ARollbackTakesTheNewFolderAway) {
    Machine m;
    plan::ApplyOptions o;
    o.fail_at = 3;
    const auto r = plan::apply(m.host, module_plan(m.host, "/opt/modules"), o);
    ASSERT_TRUE(r.preflight.empty()) << r.preflight.front();
    EXPECT_EQ(r.failed_step, 2u);
    EXPECT_TRUE(r.manual_undo.empty());
    EXPECT_EQ(r.steps[0].status, plan::StepStatus::rolled_back);
    EXPECT_EQ(r.steps[1].status, plan::StepStatus::rolled_back);
    EXPECT_FALSE(fs::exists(m.tmp.path() / "opt/modules/cuda"));
    EXPECT_TRUE(fs::is_directory(m.tmp.path() / "opt/modules"));
}

TEST(PlanMakeFolder, AMissingParentIsRefusedOnceAndNothingIsMade) {
    Machine m;
    const auto r = plan::apply(m.host, module_plan(m.host, "/opt/nowhere"));
    ASSERT_EQ(r.preflight.size(), 1u) << ::testing::PrintToString(r.preflight);
    EXPECT_EQ(r.preflight[0], "step 1: /opt/nowhere: No such file or directory" + inside(m));
    EXPECT_FALSE(fs::exists(m.tmp.path() / "opt/nowhere"));
}

TEST(PlanMakeFolder, AFolderThatAppearedSinceThePlanIsRefused) {
    Machine m;
    const auto p = module_plan(m.host, "/opt/modules");
    fs::create_directories(m.tmp.path() / "opt/modules/cuda");
    const auto r = plan::apply(m.host, p);
    ASSERT_EQ(r.preflight.size(), 1u) << ::testing::PrintToString(r.preflight);
    EXPECT_EQ(r.preflight[0],
              "step 1: /opt/modules/cuda exists now, which it did not when the plan was made" + inside(m) + ": run the command again");
    EXPECT_FALSE(fs::exists(m.tmp.path() / "opt/modules/cuda/12.4"));
}

TEST(PlanMakeFolder, AWriteIntoAFolderNoStepMakesIsStillRefused) {
    Machine m;
    plan::Plan p;
    p.steps.push_back(plan::write_file(m.host, "/opt/modules/cuda/12.4", "#%Module\n", "module 12.4"));
    const auto r = plan::apply(m.host, p);
    ASSERT_EQ(r.preflight.size(), 1u);
    EXPECT_EQ(r.preflight[0], "step 1: /opt/modules/cuda: No such file or directory" + inside(m));
}

}  // namespace cudoctor::test::plan_make_folder
