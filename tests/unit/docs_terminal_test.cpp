// The colour policy (NO_COLOR, CLICOLOR_FORCE, TERM=dumb, a TTY) and the --color decision, which
// reads the process environment and never changes it; checked on a real pipe and a pseudo-terminal.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "commands/terminal.hpp"

using namespace cudoctor::commands;

namespace {

/// Restores an environment variable when the test ends.
class SavedEnv {
  public:
    explicit SavedEnv(const char* name) : m_name(name) {
        if (const char* v = std::getenv(name)) m_value = v;
    }
    ~SavedEnv() {
        if (m_value) ::setenv(m_name, m_value->c_str(), 1);
        else ::unsetenv(m_name);
    }
    SavedEnv(const SavedEnv&) = delete;
    SavedEnv& operator=(const SavedEnv&) = delete;

  private:
    const char* m_name;
    std::optional<std::string> m_value;
};

}  // namespace

TEST(DocsTerminal, PolicyTable) {
    struct Case {
        const char* no_color;
        const char* force;
        const char* term;
        bool tty;
        bool want;
    };
    const Case cases[] = {
        {nullptr, nullptr, "xterm-256color", true, true},    // a terminal
        {nullptr, nullptr, "xterm-256color", false, false},  // a pipe or file
        {"1", nullptr, "xterm", true, false},                // NO_COLOR wins on a terminal
        {"", nullptr, "xterm", true, true},                  // an empty NO_COLOR is "unset" (no-color.org)
        {"1", "1", "xterm", true, false},                    // NO_COLOR wins over CLICOLOR_FORCE
        {nullptr, "1", nullptr, false, true},                // forced into a pipe
        {nullptr, "0", nullptr, true, true},                 // CLICOLOR_FORCE=0 forces nothing
        {nullptr, "0", nullptr, false, false},
        {nullptr, nullptr, "dumb", true, false},  // a dumb terminal
        {nullptr, "1", "dumb", false, true},      // forcing beats TERM=dumb
        {nullptr, nullptr, nullptr, true, true},
    };
    for (const auto& c : cases)
        EXPECT_EQ(color_policy(c.no_color, c.force, c.term, c.tty), c.want)
            << "NO_COLOR=" << (c.no_color ? c.no_color : "(unset)") << " CLICOLOR_FORCE=" << (c.force ? c.force : "(unset)")
            << " TERM=" << (c.term ? c.term : "(unset)") << " tty=" << c.tty;
}

TEST(DocsTerminal, ParseColorMode) {
    EXPECT_EQ(parse_color_mode("always"), ColorMode::always);
    EXPECT_EQ(parse_color_mode("never"), ColorMode::never);
    EXPECT_EQ(parse_color_mode("auto"), ColorMode::automatic);
    EXPECT_EQ(parse_color_mode("sometimes"), ColorMode::automatic);
}

TEST(DocsTerminal, ColorModeDecidesWithoutTouchingTheEnvironment) {
    SavedEnv no_color("NO_COLOR"), force("CLICOLOR_FORCE"), term("TERM");
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::unsetenv("TERM");

    ::setenv("NO_COLOR", "1", 1);
    ::unsetenv("CLICOLOR_FORCE");
    EXPECT_TRUE(decide_color(ColorMode::always, fds[1])) << "--color=always colours a pipe, NO_COLOR or not";
    EXPECT_STREQ(std::getenv("NO_COLOR"), "1") << "the environment is left as the user set it";
    EXPECT_EQ(std::getenv("CLICOLOR_FORCE"), nullptr);

    ::unsetenv("NO_COLOR");
    ::setenv("CLICOLOR_FORCE", "1", 1);
    EXPECT_FALSE(decide_color(ColorMode::never, fds[1])) << "--color=never wins over CLICOLOR_FORCE";
    EXPECT_EQ(std::getenv("NO_COLOR"), nullptr);
    EXPECT_STREQ(std::getenv("CLICOLOR_FORCE"), "1");
    EXPECT_TRUE(decide_color(ColorMode::automatic, fds[1])) << "auto follows CLICOLOR_FORCE";

    ::unsetenv("CLICOLOR_FORCE");
    EXPECT_FALSE(decide_color(ColorMode::automatic, fds[1])) << "a pipe is no terminal";
    EXPECT_FALSE(color_enabled(fds[1])) << "a pipe is no terminal";
    EXPECT_FALSE(color_enabled(-1)) << "an invalid descriptor is no terminal";
    ::close(fds[0]);
    ::close(fds[1]);
}

TEST(DocsTerminal, ColorEnvironmentForALaunchedCommand) {
    EXPECT_EQ(color_environment(ColorMode::never), (std::vector<std::string>{"NO_COLOR=1"}));
    EXPECT_EQ(color_environment(ColorMode::always), (std::vector<std::string>{"CLICOLOR_FORCE=1"}));
    EXPECT_TRUE(color_environment(ColorMode::automatic).empty()) << "auto: the child decides for its own output";
}

TEST(DocsTerminal, AutoColoursARealTerminal) {
    SavedEnv no_color("NO_COLOR"), force("CLICOLOR_FORCE"), term("TERM");
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) GTEST_SKIP() << "no pseudo-terminals here";
    ASSERT_EQ(::grantpt(master), 0);
    ASSERT_EQ(::unlockpt(master), 0);
    const int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
    ASSERT_GE(slave, 0);
    ::unsetenv("NO_COLOR");
    ::unsetenv("CLICOLOR_FORCE");
    ::setenv("TERM", "xterm", 1);
    EXPECT_TRUE(color_enabled(slave));
    ::setenv("NO_COLOR", "yes", 1);
    EXPECT_FALSE(color_enabled(slave));
    ::unsetenv("NO_COLOR");
    ::setenv("TERM", "dumb", 1);
    EXPECT_FALSE(color_enabled(slave));
    ::close(slave);
    ::close(master);
}
