// Row scope: the name scope of a constraint-side expression (DEFAULT, CHECK,
// generated column, partial-index predicate, RETURNING) over one row of one table.
//
// Layout invariant: the scope lists the table's columns three times, first under the table
// name (or alias), then as `new.*`, then as `old.*` (both hidden: reachable only qualified);
// the matching evaluation row (rowContext, core/execution/dml.h) is new ‖ new ‖ old, with old
// all NULL when there is no old row (INSERT, or a stored row re-validated by DDL).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/planner/binder.h"

namespace optic {

// The table's columns under `alias` (or its name), then once more under each of `hidden`
// (reachable only qualified).
inline Scope layeredRowScope(const TableSchema& t, const std::string& alias, std::initializer_list<const char*> hidden,
                             const Scope* outer = nullptr) {
  Scope s;
  s.parent = outer;
  std::vector<std::string> qualifiers{alias.empty() ? t.name : alias};
  for (const char* h : hidden) qualifiers.emplace_back(h);
  for (size_t layer = 0; layer < qualifiers.size(); ++layer) {
    for (const ColumnSchema& c : t.columns) {
      ScopeColumn sc;
      sc.table = qualifiers[layer];
      sc.name = c.name;
      sc.type = c.type;
      sc.collation = c.collation;
      sc.collationRank = c.collationDeclared ? 2 : (c.collation != Collation::kBinary ? 1 : 0);
      sc.hidden = layer > 0;
      s.columns.push_back(sc);
    }
  }
  return s;
}

inline Scope rowScope(const TableSchema& t, const std::string& alias, const Scope* outer = nullptr) {
  return layeredRowScope(t, alias, {"new", "old"}, outer);
}

// The scope of a table's DEFAULTs and CHECKs: the row scope, then one column per mutation-context
// variable (sql-core.md §3.8), qualified `context` and claiming the bare name, so a bare `v`
// is the variable even when a column is called v. Its evaluation row is
// rowContext(new, old) ‖ the statement's context values. Generated columns and partial-index
// predicates bind over rowScope: their value never depends on a statement's envelope.
inline Scope contextRuleScope(const TableSchema& t, const Scope* outer = nullptr) {
  Scope s = rowScope(t, "", outer);
  for (ScopeColumn& c : s.columns) c.ruleRow = !c.hidden;
  for (const ContextVariable& v : t.contextVariables) {
    ScopeColumn sc;
    sc.table = "context";
    sc.name = v.name;
    sc.type = v.type;
    sc.claimsBareName = true;
    s.columns.push_back(sc);
  }
  return s;
}

}  // namespace optic
