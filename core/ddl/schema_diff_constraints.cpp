// Named-constraint and tag drift of a paired table (schema_diff_constraints.h).
#include "core/ddl/schema_diff_constraints.h"

#include <map>
#include <optional>
#include <set>

#include "core/catalog/reserved_tags.h"
#include "core/common/names.h"
#include "core/common/value_ops.h"
#include "core/parser/ddl_printer.h"
#include "core/parser/printer.h"

namespace optic {

namespace {

struct NamedConstraint {
  std::string name;
  ast::Tags tags;
  std::string ddl;  // declared side only
};

bool userNamed(const std::string& name) { return !name.empty() && name[0] != '_'; }

std::optional<std::string> tagValue(const ast::Tags& tags, const char* key) {
  for (const ast::Tag& t : tags) {
    if (lowerName(t.key) == key && !t.value.isNull()) return toText(t.value);
  }
  return std::nullopt;
}

// Constraints by lower-case name, in declaration order.
struct NamedConstraints {
  std::vector<std::string> order;
  std::map<std::string, NamedConstraint> byKey;
  void add(const std::string& name, const ast::Tags& tags, std::string ddl) {
    std::string key = lowerName(name);
    if (!userNamed(name) || byKey.count(key)) return;
    order.push_back(key);
    byKey.emplace(key, NamedConstraint{name, tags, std::move(ddl)});
  }
  bool has(const std::string& key) const { return byKey.count(key) > 0; }
};

// Declared user-named constraints, table-level then column-level; the first of a repeated name
// wins (a duplicate is CREATE TABLE's error, not the differ's).
NamedConstraints declaredConstraints(const ast::CreateTable& ct) {
  NamedConstraints out;
  auto add = [&](const std::string& name, const ast::Tags& tags, std::string ddl) { out.add(name, tags, std::move(ddl)); };
  for (const ast::TableConstraint& tc : ct.constraints) {
    if (tc.kind != ast::TableConstraint::Kind::kPrimaryKey) add(tc.name, tc.tags, printTableConstraint(tc));
  }
  for (const ast::ColumnDef& cd : ct.columns) {
    for (const ast::ColumnConstraint& cc : cd.constraints) {
      std::string ddl = printColumnConstraintAsTable(cd, cc);
      if (!ddl.empty()) add(cc.name, cc.tags, std::move(ddl));
    }
  }
  return out;
}

NamedConstraints liveConstraints(const TableSchema& t) {
  NamedConstraints out;
  auto add = [&](const std::string& name, const ast::Tags& tags) { out.add(name, tags, ""); };
  for (const CheckConstraint& c : t.checks) add(c.name, c.tags);
  for (const IndexSchema& ix : t.indexes) {
    if (ix.implicit && !ix.mintedName) add(ix.constraintName, ix.tags);
  }
  for (const ForeignKey& fk : t.foreignKeys) add(fk.name, fk.tags);
  return out;
}

std::multiset<std::pair<std::string, std::string>> stateTags(const ast::Tags& tags) {
  std::multiset<std::pair<std::string, std::string>> out;
  for (const ast::Tag& t : tags) {
    std::string k = lowerName(t.key);
    if (k != kIdTag && k != kPreviousNameTag) out.emplace(t.key, printLiteral(t.value));
  }
  return out;
}

}  // namespace

bool tagsDrifted(const ast::Tags& declared, const ast::Tags& live) { return stateTags(declared) != stateTags(live); }

ConstraintDiff diffNamedConstraints(const ast::CreateTable& declared, const TableSchema& live, bool useHints) {
  NamedConstraints want = declaredConstraints(declared);
  NamedConstraints have = liveConstraints(live);
  ConstraintDiff out;
  std::set<std::string> claimed;              // live keys paired with a declared constraint
  std::map<std::string, std::string> pairOf;  // declared key -> live key
  for (const std::string& key : want.order) {
    if (have.has(key)) {
      pairOf[key] = key;
      claimed.insert(key);
    }
  }
  auto hinted = [&](const NamedConstraint& d) -> std::optional<std::string> {
    if (std::optional<std::string> id = tagValue(d.tags, kIdTag)) {
      for (const std::string& lkey : have.order) {
        if (!claimed.count(lkey) && tagValue(have.byKey.at(lkey).tags, kIdTag) == id) return lkey;
      }
    }
    if (std::optional<std::string> prev = tagValue(d.tags, kPreviousNameTag)) {
      for (const std::string& p : splitNameList(*prev)) {
        std::string lkey = lowerName(p);
        if (have.has(lkey) && !claimed.count(lkey) && !want.has(lkey)) return lkey;
      }
    }
    return std::nullopt;
  };
  for (const std::string& key : want.order) {
    if (!useHints || pairOf.count(key)) continue;
    const NamedConstraint& d = want.byKey.at(key);
    std::optional<std::string> match = hinted(d);
    if (!match) continue;
    pairOf[key] = *match;
    claimed.insert(*match);
    out.renames.emplace_back(have.byKey.at(*match).name, d.name);
  }
  for (const std::string& lkey : have.order) {
    if (!claimed.count(lkey)) out.drops.push_back(have.byKey.at(lkey).name);
  }
  for (const std::string& key : want.order) {
    const NamedConstraint& d = want.byKey.at(key);
    auto p = pairOf.find(key);
    if (p == pairOf.end()) out.adds.push_back(d.ddl);
    else if (p->second == key && tagsDrifted(d.tags, have.byKey.at(key).tags)) out.retags.emplace_back(d.name, d.tags);
  }
  return out;
}

}  // namespace optic
