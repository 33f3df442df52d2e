// schedule.cpp: parsing of the OMP_SCHEDULE syntax for schedule::runtime().
#include "forkjoin/schedule.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace forkjoin {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  return true;
}
[[noreturn]] void bad(std::string_view text, const char* why) {
  throw std::invalid_argument("forkjoin: bad schedule '" + std::string(text) + "': " + why);
}
}  // namespace

schedule schedule::parse(std::string_view text) {
  std::string_view s = trim(text);
  if (auto colon = s.find(':'); colon != std::string_view::npos) {
    std::string_view modifier = trim(s.substr(0, colon));
    if (!iequals(modifier, "monotonic") && !iequals(modifier, "nonmonotonic"))
      bad(text, "the modifier must be monotonic or nonmonotonic");
    s = trim(s.substr(colon + 1));
  }
  std::string_view kind_text = s;
  std::size_t chunk = 0;
  bool has_chunk = false;
  if (auto comma = s.find(','); comma != std::string_view::npos) {
    kind_text = trim(s.substr(0, comma));
    std::string_view c = trim(s.substr(comma + 1));
    auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), chunk);
    if (ec != std::errc{} || end != c.data() + c.size() || chunk == 0)
      bad(text, "the chunk must be a positive integer");
    has_chunk = true;
  }
  if (iequals(kind_text, "static")) return static_(chunk);
  if (iequals(kind_text, "dynamic")) return dynamic(has_chunk ? chunk : 1);
  if (iequals(kind_text, "guided")) return guided(has_chunk ? chunk : 1);
  if (iequals(kind_text, "auto")) return auto_(chunk);
  bad(text, "the kind must be static, dynamic, guided or auto");
}

schedule schedule::runtime() {
  if (const char* v = std::getenv("FORKJOIN_SCHEDULE"); v != nullptr && *v != '\0') return parse(v);
  if (const char* v = std::getenv("OMP_SCHEDULE"); v != nullptr && *v != '\0') return parse(v);
  return auto_();
}

}  // namespace forkjoin
