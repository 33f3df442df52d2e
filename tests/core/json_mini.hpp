// json_mini.hpp: a strict little JSON parser for the trace tests (RFC 8259: objects, arrays,
// strings with escapes, numbers, true/false/null; no trailing commas, no comments, nothing
// after the value). Throws std::runtime_error with the offset on any error.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace forkjoin::test {

struct json {
  enum class type { null, boolean, number, string, array, object };
  type t = type::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<json> arr;
  std::map<std::string, json> obj;

  bool has(const std::string& k) const { return t == type::object && obj.count(k) != 0; }
  const json& at(const std::string& k) const {
    auto it = obj.find(k);
    if (t != type::object || it == obj.end()) throw std::runtime_error("json: no key " + k);
    return it->second;
  }
};

class json_parser {
 public:
  explicit json_parser(std::string_view text) : s_(text) {}
  json parse() {
    json v = value();
    skip_ws();
    if (i_ != s_.size()) fail("text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("json: ") + what + " at offset " + std::to_string(i_));
  }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  char peek() {
    skip_ws();
    if (i_ >= s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail("unexpected character");
    ++i_;
  }
  void literal(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) fail("bad literal");
    i_ += w.size();
  }
  json value() {
    json v;
    const char c = peek();
    if (c == '{') {
      v.t = json::type::object;
      ++i_;
      if (peek() == '}') {
        ++i_;
        return v;
      }
      for (;;) {
        if (peek() != '"') fail("object key is not a string");
        std::string k = string();
        expect(':');
        if (v.obj.count(k) != 0) fail("duplicate key");
        v.obj.emplace(std::move(k), value());
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.t = json::type::array;
      ++i_;
      if (peek() == ']') {
        ++i_;
        return v;
      }
      for (;;) {
        v.arr.push_back(value());
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.t = json::type::string;
      v.str = string();
      return v;
    }
    if (c == 't' || c == 'f') {
      v.t = json::type::boolean;
      v.b = c == 't';
      literal(v.b ? "true" : "false");
      return v;
    }
    if (c == 'n') {
      literal("null");
      return v;
    }
    v.t = json::type::number;
    const std::size_t start = i_;
    v.num = number();
    v.str = std::string(s_.substr(start, i_ - start));  // the exact text, for integer conversions
    return v;
  }
  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          for (int k = 0; k < 4; ++k)
            if (i_ >= s_.size() || std::isxdigit(static_cast<unsigned char>(s_[i_++])) == 0) fail("bad \\u escape");
          out += '?';
          break;
        default:
          fail("bad escape");
      }
    }
  }
  double number() {
    const std::size_t start = i_;
    if (s_[i_] == '-') ++i_;
    auto digits = [&] {
      const std::size_t d = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])) != 0) ++i_;
      if (i_ == d) fail("digit expected");
    };
    if (i_ < s_.size() && s_[i_] == '0')
      ++i_;
    else
      digits();
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      digits();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      digits();
    }
    return std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

inline json parse_json(std::string_view text) { return json_parser(text).parse(); }

}  // namespace forkjoin::test
