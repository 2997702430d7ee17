// Reserved tags (reserved_tags.h). The key table, sites, value shapes and messages follow the
// reference's schema/reserved-tags.ts.
#include "core/catalog/reserved_tags.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/common/names.h"
#include "core/common/value_ops.h"

namespace optic {

const char* const kIdTag = "quereus.id";
const char* const kPreviousNameTag = "quereus.previous_name";

namespace {

enum class ValueShape : uint8_t { kText, kBoolean, kEnum, kIdentifierList, kEvictionPolicy, kRationale };

struct TagSpec {
  const char* key;     // the exact key, or a family's prefix when `family`
  bool family;         // `quereus.lens.ack.<code>`: any non-empty remainder after the prefix
  std::vector<TagSite> sites;
  ValueShape shape;
  std::vector<const char*> allowed;  // kEnum's values
};

using S = TagSite;
using V = ValueShape;

const std::vector<TagSpec>& specs() {
  static const std::vector<TagSpec> kSpecs = {
      {"quereus.id", false, {S::kTable, S::kColumn, S::kViewDdl, S::kIndex, S::kConstraint}, V::kText, {}},
      {"quereus.previous_name", false, {S::kTable, S::kColumn, S::kViewDdl, S::kIndex, S::kConstraint}, V::kText, {}},
      {"quereus.expose_implicit_index", false, {S::kConstraint}, V::kBoolean, {}},
      {"quereus.engine_managed", false, {S::kTable}, V::kBoolean, {}},
      {"quereus.sync.replicate", false, {S::kViewDdl, S::kTable}, V::kBoolean, {}},
      {"quereus.sync.evict", false, {S::kViewDdl, S::kTable}, V::kEvictionPolicy, {}},
      {"quereus.lens.writable", false, {S::kLogicalColumn}, V::kBoolean, {}},
      {"quereus.lens.policy.error-on", false, {S::kLogicalTable}, V::kText, {}},
      {"quereus.lens.policy.require-ack", false, {S::kLogicalTable}, V::kText, {}},
      {"quereus.lens.ack.", true, {S::kLogicalTable, S::kLogicalConstraint}, V::kRationale, {}},
      {"quereus.lens.access.", true, {S::kLogicalTable}, V::kText, {}},
      {"quereus.lens.decomp.logical.", true, {S::kTable}, V::kText, {}},
      {"quereus.lens.decomp.role.", true, {S::kTable}, V::kEnum, {"primary-storage", "auxiliary-access"}},
      {"quereus.lens.decomp.anchor.", true, {S::kTable}, V::kText, {}},
      {"quereus.lens.decomp.member.", true, {S::kTable}, V::kText, {}},
      {"quereus.lens.decomp.presence.", true, {S::kTable}, V::kEnum, {"mandatory", "optional"}},
      {"quereus.lens.decomp.keykind.", true, {S::kTable}, V::kEnum, {"surrogate", "logical-tuple"}},
      {"quereus.lens.decomp.key.", true, {S::kTable}, V::kIdentifierList, {}},
      {"quereus.lens.decomp.col.", true, {S::kTable}, V::kText, {}},
      {"quereus.lens.decomp.pivot.", true, {S::kTable}, V::kText, {}},
  };
  return kSpecs;
}

bool isReserved(const std::string& key) { return key.rfind("quereus.", 0) == 0; }

// Exact keys first, then families (whose remainder must be non-empty).
const TagSpec* findSpec(const std::string& key) {
  for (const TagSpec& s : specs()) {
    if (!s.family && key == s.key) return &s;
  }
  for (const TagSpec& s : specs()) {
    std::string prefix = s.key;
    if (s.family && key.size() > prefix.size() && key.rfind(prefix, 0) == 0) return &s;
  }
  return nullptr;
}

const char* siteLabel(TagSite site) {
  switch (site) {
    case S::kViewDdl: return "a view declaration";
    case S::kDmlStatement: return "a DML statement";
    case S::kTable: return "a basis table";
    case S::kColumn: return "a physical column";
    case S::kIndex: return "a physical index";
    case S::kConstraint: return "a physical constraint";
    case S::kLogicalTable: return "a logical table";
    case S::kLogicalColumn: return "a logical column";
    case S::kLogicalConstraint: return "a logical constraint";
  }
  return "";
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

[[noreturn]] void unknownTag(const std::string& key, const std::string& where) {
  throw Error(ErrorCode::kError, "Unknown reserved tag " + quoted(key) + where +
                                     ": no such key in the reserved 'quereus.*' namespace");
}

[[noreturn]] void notAllowedHere(const std::string& key, const TagSpec& spec, TagSite site) {
  std::string allowed;
  for (TagSite s : spec.sites) allowed += (allowed.empty() ? "" : ", ") + std::string(siteLabel(s));
  throw Error(ErrorCode::kError, "Reserved tag " + quoted(key) + " is not allowed on " + siteLabel(site) +
                                     "; it is valid only on: " + allowed);
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.')) return false;
  }
  return true;
}

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

bool isIdentifierList(const Value& v) {
  if (!v.isText() || trimmed(v.asText()).empty()) return false;
  std::string rest = v.asText() + ",";
  for (size_t start = 0, comma; (comma = rest.find(',', start)) != std::string::npos; start = comma + 1) {
    if (!isIdentifier(trimmed(rest.substr(start, comma - start)))) return false;
  }
  return true;
}

// 'never', 'immediate' or a non-negative number of milliseconds (a number or numeric text).
bool isEvictionPolicy(const Value& v) {
  if (v.isNumeric()) return v.kind() != ValueKind::kReal ? toText(v)[0] != '-' : v.asReal() >= 0;
  if (!v.isText()) return false;
  std::string t = lowerName(trimmed(v.asText()));
  if (t == "never" || t == "immediate" || t.empty()) return !t.empty();
  char* end = nullptr;
  double n = std::strtod(t.c_str(), &end);
  return *end == '\0' && std::isfinite(n) && n >= 0;
}

// The value's shape problem ("" when well-shaped). An empty acknowledgment rationale is only a
// warning in the reference, so it never fails here.
std::string shapeProblem(const TagSpec& spec, const Value& v) {
  switch (spec.shape) {
    case V::kText: return v.isText() ? "" : "must be a text value";
    case V::kBoolean: return v.kind() == ValueKind::kBoolean ? "" : "must be a boolean value";
    case V::kRationale: return "";
    case V::kIdentifierList:
      return isIdentifierList(v) ? "" : "must be a non-empty comma-separated list of identifiers";
    case V::kEvictionPolicy:
      return isEvictionPolicy(v) ? "" : "must be 'never', 'immediate', or a non-negative number of milliseconds";
    case V::kEnum: {
      std::string list;
      for (const char* a : spec.allowed) {
        if (v.isText() && v.asText() == a) return "";
        list += (list.empty() ? "" : ", ") + std::string(a);
      }
      return "has invalid value " + (v.isText() ? quoted(v.asText()) : toText(v)) + "; expected one of: " + list;
    }
  }
  return "";
}

bool legalAt(const TagSpec& spec, TagSite site) {
  for (TagSite s : spec.sites) {
    if (s == site) return true;
  }
  return false;
}

}  // namespace

void validateReservedTags(const ast::Tags& tags) {
  for (const ast::Tag& t : tags) {
    std::string k = lowerName(t.key);
    if (isReserved(k) && !findSpec(k)) unknownTag(t.key, "");
  }
}

void validateReservedTags(const ast::Tags& tags, TagSite site) {
  for (const ast::Tag& t : tags) {
    std::string k = lowerName(t.key);
    if (!isReserved(k)) continue;
    const TagSpec* spec = findSpec(k);
    if (!spec) unknownTag(t.key, std::string(" on ") + siteLabel(site));
    if (!legalAt(*spec, site)) notAllowedHere(t.key, *spec, site);
    std::string problem = shapeProblem(*spec, t.value);
    if (!problem.empty()) {
      throw Error(ErrorCode::kError, "Reserved tag " + quoted(t.key) + " on " + siteLabel(site) + " " + problem);
    }
  }
}

void validateStatementTags(const ast::Tags& tags) { validateReservedTags(tags, TagSite::kDmlStatement); }

namespace {

void validateColumnTags(const ast::ColumnDef& cd) {
  validateReservedTags(cd.tags, TagSite::kColumn);
  for (const ast::ColumnConstraint& cc : cd.constraints) validateReservedTags(cc.tags, TagSite::kConstraint);
}

void validateAlterTableTags(const ast::AlterTable& at) {
  using A = ast::AlterTable::Action;
  switch (at.action) {
    case A::kSetTags: validateReservedTags(at.tags, TagSite::kTable); break;
    case A::kAlterConstraintTags: validateReservedTags(at.tags, TagSite::kConstraint); break;
    case A::kAddColumn: if (at.columnDef) validateColumnTags(*at.columnDef); break;
    case A::kAddConstraint: if (at.constraint) validateReservedTags(at.constraint->tags, TagSite::kConstraint); break;
    case A::kAlterColumn:
      if (at.columnAction == ast::AlterTable::ColumnAction::kSetTags) validateReservedTags(at.tags, TagSite::kColumn);
      break;
    default: break;
  }
}

}  // namespace

void validateCreateTableTags(const ast::CreateTable& ct) {
  validateReservedTags(ct.tags, TagSite::kTable);
  for (const ast::ColumnDef& cd : ct.columns) validateColumnTags(cd);
  for (const ast::TableConstraint& tc : ct.constraints) validateReservedTags(tc.tags, TagSite::kConstraint);
}

void validateDdlTags(const ast::Statement& stmt) {
  using K = ast::StatementKind;
  switch (stmt.kind) {
    case K::kCreateTable: validateCreateTableTags(*stmt.createTable); break;
    case K::kCreateIndex: validateReservedTags(stmt.createIndex->tags, TagSite::kIndex); break;
    case K::kAlterTable: validateAlterTableTags(*stmt.alterTable); break;
    case K::kAlterObjectTags: {
      const ast::AlterObjectTags& a = *stmt.alterObjectTags;
      TagSite site = a.kind == ast::AlterObjectTags::Kind::kIndex ? TagSite::kIndex : TagSite::kViewDdl;
      validateReservedTags(a.tags, site);
      break;
    }
    default: break;
  }
}

}  // namespace optic
