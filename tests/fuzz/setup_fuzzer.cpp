// libFuzzer target for the setup reader (setups/setup.cpp): any bytes, taken as they are and as the
// payload of a setup line, must end in a Setup or a one-line InputError, never a crash or a sanitizer
// report; both forms must agree. A setup that parses must survive the round trips to_json (compact
// and indented) and to_line unchanged. Seeds: tests/data/fuzz/setup.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "base/errors.h"
#include "fuzz_util.h"
#include "setups/setup.h"

namespace {

std::optional<ts::setups::Setup> parse(const std::string& text) {
  try {
    return ts::setups::parse_setup(text, "fuzz");
  } catch (const ts::InputError& e) {
    ts::fuzz::require_one_line(e.what());
    return std::nullopt;
  }
}

void require_round_trip(const ts::setups::Setup& s) {
  const std::string forms[] = {ts::setups::to_json(s), ts::setups::to_json(s, true), ts::setups::to_line(s)};
  for (const std::string& back : forms) {
    const auto again = parse(back);
    if (!again || !(*again == s)) {
      std::fprintf(stderr, "the round trip changed or refused the setup:\n%s\n", back.c_str());
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto as_is = parse(text);
  if (as_is) require_round_trip(*as_is);
  if (ts::setups::is_setup_line(text) || text.empty()) return 0;
  const auto as_line = parse(std::string(ts::setups::kLinePrefix) + ts::setups::base64url_encode(text));
  if (as_is.has_value() != as_line.has_value() || (as_is && !(*as_is == *as_line))) {
    std::fprintf(stderr, "the line and the JSON it holds read differently\n");
    std::abort();
  }
  return 0;
}
