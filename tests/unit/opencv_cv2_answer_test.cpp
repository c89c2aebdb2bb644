// The child interpreter's answer for `opencv check`: the script run by a real python3, and
// answers that are not what the script prints.
#include <filesystem>

#include <gtest/gtest.h>

#include "host/host.hpp"
#include "opencv/cv2_check.hpp"

namespace cudoctor::opencv {
namespace {

TEST(OpencvCv2Answer, ImportErrorFromARealPythonWithoutCv2) {
    // -I -S: isolated, no site-packages, so cv2 cannot be found on any machine.
    const auto host = host::Host::real();
    if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
    auto run = host.run({"/usr/bin/python3", "-I", "-S", "-c", cv2_probe_script()}, std::chrono::seconds(20));
    ASSERT_TRUE(run) << run.error().message;
    ASSERT_EQ(run->exit_code, 0) << run->err;
    auto answer = parse_cv2_answer(run->out);
    ASSERT_TRUE(answer) << answer.error().message;
    EXPECT_EQ(answer->import_error, "ModuleNotFoundError: No module named 'cv2'");
    EXPECT_TRUE(answer->version.empty());
}

TEST(OpencvCv2Answer, LinesBeforeTheObjectAreIgnored) {
    auto a = parse_cv2_answer(
        "sitecustomize says hello\n{\"version\": \"4.10.0\", \"file\": \"/x/cv2/__init__.py\", "
        "\"build_information\": \"General configuration for OpenCV 4.10.0 ===\", \"cuda_devices\": 1, "
        "\"libraries\": [\"/x/cv2/cv2.abi3.so\", 7]}\n");
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_EQ(a->version, "4.10.0");
    EXPECT_EQ(a->cuda_devices, 1);
    EXPECT_EQ(a->libraries, std::vector<std::string>{"/x/cv2/cv2.abi3.so"});
}

TEST(OpencvCv2Answer, GarbageIsOneError) {
    for (std::string_view junk : {std::string_view(""), std::string_view("Python 2.7.18"), std::string_view("[1, 2]"),
                                  std::string_view("{\"unrelated\": true}"), std::string_view("{\"version\": ")}) {
        auto a = parse_cv2_answer(junk);
        ASSERT_FALSE(a) << junk;
        EXPECT_EQ(a.error().code, Errc::parse);
    }
    EXPECT_EQ(parse_cv2_answer("Python 2.7.18").error().message, "the interpreter did not answer with cv2's facts: \"Python 2.7.18\"");
}

}  // namespace
}  // namespace cudoctor::opencv
