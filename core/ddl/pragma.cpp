// PRAGMA (pragma.h).
#include "core/ddl/pragma.h"

#include "core/common/error.h"
#include "core/common/value_ops.h"

namespace optic {
namespace {

bool parseBool(const Value& v) {
  if (v.kind() == ValueKind::kBoolean) return v.asBool();
  if (v.isNumeric()) return v.toDouble() != 0;
  std::string s = lowerName(toText(v));
  if (s == "on" || s == "true" || s == "yes" || s == "1") return true;
  if (s == "off" || s == "false" || s == "no" || s == "0") return false;
  fail("Invalid boolean value for pragma: " + toText(v));
}

// `pragma schema_path = 'a, b'`: the comma-separated schema names, trimmed and lower-cased.
std::vector<std::string> parseSchemaPath(const std::string& text) {
  std::vector<std::string> path;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) path.push_back(lowerName(part));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return path;
}

void setOption(Settings& st, const std::string& option, const Value& v) {
  if (option == "foreign_keys") st.foreignKeys = parseBool(v);
  else if (auto flag = st.plannerFlags.find(option); flag != st.plannerFlags.end()) flag->second = parseBool(v);
  else if (option == "default_column_nullability") st.defaultNullable = lowerName(toText(v)) == "nullable";
  else if (option == "nondeterministic_schema") st.nondeterministicSchema = parseBool(v);
  else if (option == "default_vtab_module") st.defaultModule = lowerName(toText(v));
  else if (option == "ddl_transaction_policy") st.strictDdlTransactions = lowerName(toText(v)) == "strict";
  else if (option == "default_collation") {
    std::optional<Collation> c = collationFromName(toText(v));
    if (!c) fail("no such collation sequence: " + toText(v));
    st.defaultCollation = *c;
    st.defaultCollationSpelling = toText(v);
  } else if (option == "schema_path" || option == "search_path") {
    st.schemaPath = parseSchemaPath(toText(v));
  }
}

// The option's current value; `spelled` is the pragma's name as written, for the error.
Value readOption(const Settings& st, const std::string& option, const std::string& spelled) {
  if (option == "foreign_keys") return Value::boolean(st.foreignKeys);
  if (auto flag = st.plannerFlags.find(option); flag != st.plannerFlags.end()) return Value::boolean(flag->second);
  if (option == "default_vtab_module") return Value::text(st.defaultModule);
  if (option == "default_column_nullability") return Value::text(st.defaultNullable ? "nullable" : "not_null");
  if (option == "nondeterministic_schema") return Value::boolean(st.nondeterministicSchema);
  if (option == "schema_path" || option == "search_path") {
    std::string path;
    for (const auto& x : st.schemaPath) path += (path.empty() ? "" : ",") + x;
    return Value::text(path);
  }
  if (option == "ddl_transaction_policy") return Value::text(st.strictDdlTransactions ? "strict" : "permissive");
  if (option == "default_collation") return Value::text(st.defaultCollationSpelling);
  fail("Unknown pragma: " + spelled);
}

}  // namespace

std::optional<Row> executePragma(Context& ctx, const ast::Pragma& p) {
  std::string name = lowerName(p.name.name);  // echoed as written
  // The option it sets: an alias names the same one.
  const std::string option = name == "allow_nondeterministic_schema_expressions" ? "nondeterministic_schema" : name;
  if (p.value) {
    setOption(ctx.settings(), option, *p.value);
    return std::nullopt;
  }
  return Row{Value::text(name), readOption(ctx.settings(), option, p.name.name)};
}

}  // namespace optic
