// An enum's names as one table: the name of a value and the value of a name (with aliases) are read
// from the same rows, so a name is never written in a switch and a parser separately. The first row
// of a value gives its name; later rows of the same value are aliases a parser accepts ("fp32" for
// AMP off, "Adam" for adam).
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace ts {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// The name of `v` (its first row in `table`), or `fallback` when the table has no row for it.
template <class E, std::size_t N>
constexpr const char* enum_name(const EnumName<E> (&table)[N], E v, const char* fallback = "?") {
  for (const EnumName<E>& row : table)
    if (row.value == v) return row.name;
  return fallback;
}

/// The value whose name or alias is `name` (exact, case-sensitive), or nullopt.
template <class E, std::size_t N>
constexpr std::optional<E> enum_value(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E>& row : table)
    if (name == row.name) return row.value;
  return std::nullopt;
}

}  // namespace ts
