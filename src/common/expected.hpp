#pragma once
// One error model for the whole project: cudoctor::Expected<T> is std::expected<T, Error>.
//
// GCC 12's libstdc++ ships <expected>, but clang 14 (the compiler that builds the libFuzzer
// targets) cannot instantiate it (it needs C++20 concepts at 202002L). For that one build a
// minimal stand-in with the same member names is used; everything else gets std::expected.
#include <version>
#if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202202L
#include <expected>
namespace cudoctor {
template <class T, class E>
using BasicExpected = std::expected<T, E>;
template <class E>
using Unexpected = std::unexpected<E>;
}  // namespace cudoctor
#else
#include <utility>
#include <variant>
namespace cudoctor {
template <class E>
class Unexpected {
  public:
    explicit Unexpected(E e) : m_error(std::move(e)) {}
    const E& error() const& { return m_error; }
    E&& error() && { return std::move(m_error); }

  private:
    E m_error;
};
template <class T, class E>
class BasicExpected {
  public:
    BasicExpected() requires std::is_default_constructible_v<T> : m_v(std::in_place_index<0>) {}
    // Constrained as std::expected's own converting constructor, which clang-tidy cannot see.
    // NOLINTBEGIN(bugprone-forwarding-reference-overload)
    template <class U = T>
    requires std::is_constructible_v<T, U&&> BasicExpected(U&& v) : m_v(std::in_place_index<0>, std::forward<U>(v)) {}
    // NOLINTEND(bugprone-forwarding-reference-overload)
    template <class G>
    BasicExpected(Unexpected<G> u) : m_v(std::in_place_index<1>, std::move(u).error()) {}
    bool has_value() const { return m_v.index() == 0; }
    explicit operator bool() const { return has_value(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const E& error() const { return std::get<1>(m_v); }
    template <class U>
    T value_or(U&& d) const {
        return has_value() ? value() : T(std::forward<U>(d));
    }

  private:
    std::variant<T, E> m_v;
};
template <class E>
class BasicExpected<void, E> {
  public:
    BasicExpected() = default;
    template <class G>
    BasicExpected(Unexpected<G> u) : m_err(std::move(u).error()), m_ok(false) {}
    bool has_value() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const E& error() const { return m_err; }

  private:
    E m_err{};
    bool m_ok = true;
};
}  // namespace cudoctor
#endif
