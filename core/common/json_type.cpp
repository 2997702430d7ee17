// JsonType (json_type.h): a recursive-descent parser building a tree of matchers. Parsing fails
// (nullptr) on any token it does not expect, so a typo never turns into a type that accepts all.
#include "core/common/json_type.h"

#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace optic {
namespace {

using TypePtr = std::shared_ptr<const JsonType>;

struct ParseError {};

// ---- matchers ---------------------------------------------------------------------------------

enum class Primitive { kString, kNumber, kBoolean, kNull, kUndefined, kUnknown, kNever, kObject };

class PrimitiveType final : public JsonType {
 public:
  explicit PrimitiveType(Primitive p) : p_(p) {}
  bool matches(const Json& j) const override {
    switch (p_) {
      case Primitive::kString: return j.is_string();
      case Primitive::kNumber: return j.is_number();
      case Primitive::kBoolean: return j.is_boolean();
      case Primitive::kNull: return j.is_null();
      case Primitive::kUnknown: return true;
      case Primitive::kObject: return j.is_object() || j.is_array();
      case Primitive::kUndefined:
      case Primitive::kNever: return false;
    }
    return false;
  }
  bool isUndefined() const { return p_ == Primitive::kUndefined; }

 private:
  Primitive p_;
};

class LiteralType final : public JsonType {
 public:
  explicit LiteralType(Json value) : value_(std::move(value)) {}
  bool matches(const Json& j) const override {
    if (value_.is_number() && j.is_number()) return value_.get<double>() == j.get<double>();
    return j == value_;
  }

 private:
  Json value_;
};

class ArrayType final : public JsonType {
 public:
  explicit ArrayType(TypePtr element) : element_(std::move(element)) {}
  const TypePtr& element() const { return element_; }
  bool matches(const Json& j) const override {
    if (!j.is_array()) return false;
    for (const Json& e : j) {
      if (!element_->matches(e)) return false;
    }
    return true;
  }

 private:
  TypePtr element_;
};

class TupleType final : public JsonType {
 public:
  TupleType(std::vector<TypePtr> elements, size_t required, TypePtr rest)
      : elements_(std::move(elements)), required_(required), rest_(std::move(rest)) {}
  bool matches(const Json& j) const override {
    if (!j.is_array() || j.size() < required_) return false;
    if (!rest_ && j.size() > elements_.size()) return false;
    for (size_t i = 0; i < j.size(); ++i) {
      const JsonType& t = i < elements_.size() ? *elements_[i] : *rest_;
      if (!t.matches(j[i])) return false;
    }
    return true;
  }

 private:
  std::vector<TypePtr> elements_;
  size_t required_;
  TypePtr rest_;  // the element type of `...T[]`, or null
};

class ObjectType final : public JsonType {
 public:
  struct Member {
    std::string key;
    bool optional = false;
    TypePtr type;
  };
  ObjectType(std::vector<Member> members, TypePtr index) : members_(std::move(members)), index_(std::move(index)) {}
  bool matches(const Json& j) const override {
    if (!j.is_object()) return false;
    for (const Member& m : members_) {
      auto it = j.find(m.key);
      if (it == j.end()) {
        if (!m.optional) return false;
      } else if (!m.type->matches(*it)) {
        return false;
      }
    }
    if (index_) {
      for (const auto& [key, value] : j.items()) {
        if (!index_->matches(value)) return false;
      }
    }
    return true;
  }

 private:
  std::vector<Member> members_;
  TypePtr index_;  // `[key: string]: T`, or null
};

class CombinedType final : public JsonType {
 public:
  CombinedType(std::vector<TypePtr> parts, bool any) : parts_(std::move(parts)), any_(any) {}
  bool matches(const Json& j) const override {
    for (const TypePtr& p : parts_) {
      if (p->matches(j) == any_) return any_;
    }
    return !any_;
  }

 private:
  std::vector<TypePtr> parts_;
  bool any_;  // union (one part matches) or intersection (all do)
};

// ---- parser -----------------------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  TypePtr parseAll() {
    TypePtr t = type();
    skipSpace();
    if (i_ != s_.size()) throw ParseError{};
    return t;
  }

 private:
  TypePtr type() {
    // Nesting is bounded: a type is user text, and each level is a stack frame here and in matching.
    constexpr int kMaxNesting = 64;
    if (++depth_ > kMaxNesting) throw ParseError{};
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    accept("|");  // a leading bar, as TypeScript allows
    return combined("|", true, [this] { return combined("&", false, [this] { return postfix(); }); });
  }

  template <typename Next>
  TypePtr combined(const char* op, bool any, Next next) {
    std::vector<TypePtr> parts{next()};
    while (accept(op)) parts.push_back(next());
    if (parts.size() == 1) return parts.front();
    return std::make_shared<CombinedType>(std::move(parts), any);
  }

  TypePtr postfix() {
    TypePtr t = primary();
    while (peekIs("[") && peekAfterBracketIsClose()) {
      expect("[");
      expect("]");
      t = std::make_shared<ArrayType>(t);
    }
    return t;
  }

  bool peekAfterBracketIsClose() {
    size_t save = i_;
    expect("[");
    bool close = peekIs("]");
    i_ = save;
    return close;
  }

  TypePtr primary() {
    skipSpace();
    if (accept("(")) {
      TypePtr t = type();
      expect(")");
      return t;
    }
    if (peekIs("{")) return object();
    if (peekIs("[")) return tuple();
    if (peekIs("'") || peekIs("\"")) return std::make_shared<LiteralType>(Json(quoted()));
    if (std::optional<double> n = number()) {
      if (std::floor(*n) == *n && std::fabs(*n) < 9.2e18) return std::make_shared<LiteralType>(Json(static_cast<int64_t>(*n)));
      return std::make_shared<LiteralType>(Json(*n));
    }
    std::string name = identifier();
    if (name == "true" || name == "false") return std::make_shared<LiteralType>(Json(name == "true"));
    if (name == "string") return primitive(Primitive::kString);
    if (name == "number") return primitive(Primitive::kNumber);
    if (name == "boolean") return primitive(Primitive::kBoolean);
    if (name == "null") return primitive(Primitive::kNull);
    if (name == "undefined" || name == "void") return primitive(Primitive::kUndefined);
    if (name == "unknown" || name == "any") return primitive(Primitive::kUnknown);
    if (name == "never" || name == "bigint" || name == "symbol") return primitive(Primitive::kNever);
    if (name == "object") return primitive(Primitive::kObject);
    if (name == "Array" || name == "ReadonlyArray") {
      expect("<");
      TypePtr element = type();
      expect(">");
      return std::make_shared<ArrayType>(element);
    }
    if (name == "Record") {
      expect("<");
      std::string key = identifier();
      if (key != "string") throw ParseError{};
      expect(",");
      TypePtr value = type();
      expect(">");
      return std::make_shared<ObjectType>(std::vector<ObjectType::Member>{}, value);
    }
    throw ParseError{};
  }

  static TypePtr primitive(Primitive p) { return std::make_shared<PrimitiveType>(p); }

  TypePtr object() {
    expect("{");
    std::vector<ObjectType::Member> members;
    TypePtr index;
    while (!accept("}")) {
      if (accept("[")) {  // an index signature: [key: string]: T
        identifier();
        expect(":");
        if (identifier() != "string") throw ParseError{};
        expect("]");
        expect(":");
        if (index) throw ParseError{};
        index = type();
      } else {
        ObjectType::Member m;
        skipSpace();
        m.key = peekIs("'") || peekIs("\"") ? quoted() : identifier();
        m.optional = accept("?");
        expect(":");
        m.type = type();
        members.push_back(std::move(m));
      }
      if (!accept(",") && !accept(";")) {
        expect("}");
        break;
      }
    }
    return std::make_shared<ObjectType>(std::move(members), std::move(index));
  }

  TypePtr tuple() {
    expect("[");
    std::vector<TypePtr> elements;
    size_t required = 0;
    bool optionalSeen = false;
    TypePtr rest;
    while (!accept("]")) {
      if (rest) throw ParseError{};  // the rest element comes last
      if (accept("...")) {
        auto array = std::dynamic_pointer_cast<const ArrayType>(postfix());
        if (!array) throw ParseError{};  // a rest element is an array type
        rest = array->element();
      } else {
        elements.push_back(type());
        if (accept("?")) optionalSeen = true;
        else if (optionalSeen) throw ParseError{};  // a required element after an optional one
        else required = elements.size();
      }
      if (!accept(",")) {
        expect("]");
        break;
      }
    }
    return std::make_shared<TupleType>(std::move(elements), required, std::move(rest));
  }

  std::string quoted() {
    skipSpace();
    char q = s_[i_++];
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      out.push_back(s_[i_++]);
    }
    if (i_ == s_.size()) throw ParseError{};
    ++i_;
    return out;
  }

  std::optional<double> number() {
    skipSpace();
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ == s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      i_ = start;
      return std::nullopt;
    }
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == 'e' ||
                              s_[i_] == 'E' || ((s_[i_] == '+' || s_[i_] == '-') && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E')))) {
      ++i_;
    }
    std::string digits(s_.substr(start, i_ - start));
    char* end = nullptr;
    double v = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) throw ParseError{};
    return v;
  }

  std::string identifier() {
    skipSpace();
    size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '$')) ++i_;
    if (i_ == start || std::isdigit(static_cast<unsigned char>(s_[start]))) throw ParseError{};
    return std::string(s_.substr(start, i_ - start));
  }

  void skipSpace() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool peekIs(std::string_view token) {
    skipSpace();
    return s_.substr(i_, token.size()) == token;
  }
  bool accept(std::string_view token) {
    if (!peekIs(token)) return false;
    i_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) throw ParseError{};
  }

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

std::shared_ptr<const JsonType> JsonType::parse(std::string_view text) {
  try {
    return Parser(text).parseAll();
  } catch (const ParseError&) {
    return nullptr;
  }
}

}  // namespace optic
