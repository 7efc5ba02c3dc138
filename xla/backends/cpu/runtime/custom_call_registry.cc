#include "xla/backends/cpu/runtime/custom_call_registry.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "xla/backends/cpu/runtime/linalg_custom_calls.h"

namespace xla::cpu {
namespace {

class AttributeScanner {
 public:
  explicit AttributeScanner(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  // A run of identifier characters (letters, digits, '_', '.', '-').
  std::string_view Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || text_[pos_] == '.' || text_[pos_] == '-')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  Status Error(const std::string& what) const {
    return InvalidArgument("backend_config " + std::string(text_) + ": " + what + " at offset " +
                           std::to_string(pos_));
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

StatusOr<int64_t> ParseAttributeValue(std::string_view word, const AttributeScanner& scan) {
  if (word == "true") return int64_t{1};
  if (word == "false") return int64_t{0};
  std::string s(word);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || errno == ERANGE || end != s.c_str() + s.size()) {
    return scan.Error("expected an integer attribute value, got '" + s + "'");
  }
  return static_cast<int64_t>(v);
}

}  // namespace

StatusOr<FfiAttributes> ParseFfiAttributes(std::string_view text) {
  FfiAttributes out;
  AttributeScanner scan(text);
  if (scan.AtEnd()) return out;  // no backend_config at all
  if (!scan.Consume('{')) return scan.Error("expected '{'");
  if (scan.Consume('}')) {
    if (!scan.AtEnd()) return scan.Error("unexpected text after '}'");
    return out;
  }
  do {
    std::string name(scan.Word());
    if (name.empty()) return scan.Error("expected an attribute name");
    if (!scan.Consume('=')) return scan.Error("expected '=' after " + name);
    std::string_view value = scan.Word();
    ASSIGN_OR_RETURN(int64_t v, ParseAttributeValue(value, scan));
    if (scan.Consume(':')) {
      if (scan.Word().empty()) return scan.Error("expected a type after ':'");
    }
    if (!out.emplace(name, v).second) return scan.Error("duplicate attribute " + name);
  } while (scan.Consume(','));
  if (!scan.Consume('}')) return scan.Error("expected ',' or '}'");
  if (!scan.AtEnd()) return scan.Error("unexpected text after '}'");
  return out;
}

Status CustomCallArgs::Error(const std::string& why) const {
  return InvalidArgument("custom-call " + target + " (instruction " + instruction + "): " + why);
}

Status CustomCallRegistry::Register(const std::string& target, CustomCallFactory factory) {
  if (!factories_.emplace(target, std::move(factory)).second) {
    return FailedPrecondition("custom-call target " + target + " is already registered");
  }
  return OkStatus();
}

const CustomCallFactory* CustomCallRegistry::Find(const std::string& target) const {
  auto it = factories_.find(target);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> CustomCallRegistry::Targets() const {
  std::vector<std::string> names;
  for (const auto& [name, unused] : factories_) names.push_back(name);
  return names;
}

const CustomCallRegistry& CustomCallRegistry::Builtin() {
  static const CustomCallRegistry* registry = [] {
    auto* r = new CustomCallRegistry;
    RegisterLinalgCustomCalls(r);
    return r;
  }();
  return *registry;
}

}  // namespace xla::cpu
