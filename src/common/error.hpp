#pragma once
#include <string>

#include "common/expected.hpp"

namespace cudoctor {

/// What kind of failure an Error is. "Not found" is usually a fact, not a fault: callers decide.
enum class Errc {
    not_found,    ///< the file, key or thing is absent
    permission,   ///< it exists but may not be read
    too_large,    ///< larger than the cap the caller allowed
    loop,         ///< symbolic links loop (or nest too deep)
    io,           ///< any other operating-system error
    parse,        ///< the bytes are there but are not in the expected format
    truncated,    ///< the bytes end before the format says they should
    timeout,      ///< a child process ran past its time limit
    usage,        ///< the user asked for something impossible
    unsupported,  ///< valid input this version does not handle
};

/// One error: a kind and a one-line message meant for the user ("cannot read X: too large").
struct Error {
    Errc code = Errc::io;
    std::string message;
};

template <class T>
using Expected = BasicExpected<T, Error>;

/// The failed value of any Expected: `return fail(Errc::parse, "bad magic");`
inline Unexpected<Error> fail(Errc code, std::string message) { return Unexpected<Error>(Error{code, std::move(message)}); }

/// Short lower-case name of an error kind ("not found", "too large", …).
const char* to_string(Errc code);

}  // namespace cudoctor
