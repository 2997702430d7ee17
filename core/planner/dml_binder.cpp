// INSERT / UPDATE / DELETE binding (dml_binder.h).
#include "core/planner/dml_binder.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/catalog/lens.h"
#include "core/catalog/reserved_tags.h"
#include "core/common/error.h"
#include "core/execution/committed_scan.h"
#include "core/execution/context.h"
#include "core/execution/determinism.h"
#include "core/execution/operators.h"
#include "core/parser/printer.h"
#include "core/planner/access_path.h"
#include "core/planner/change_scope.h"
#include "core/planner/expr_binder.h"
#include "core/planner/row_scope.h"
#include "core/planner/views/view_mutation.h"

namespace optic {
namespace {

using ast::ConflictAction;

// While alive, the binding environment of a table's own expressions: none of the statement's
// CTEs is visible (the table's DDL names real schema objects, Binder::CteIsolation) and
// unqualified names resolve in the table's schema first.
class TableExprBinder {
 public:
  TableExprBinder(Binder& binder, const TableSchema& t)
      : binder_(binder),
        isolation_(binder),
        row_(rowScope(t, "")),
        home_(binder.homeSchema()),
        rules_(contextRuleScope(t)) {
    binder_.setHomeSchema(t.schemaName);
  }
  ~TableExprBinder() { binder_.setHomeSchema(home_); }
  TableExprBinder(const TableExprBinder&) = delete;
  TableExprBinder& operator=(const TableExprBinder&) = delete;

  // A generated column or partial-index predicate: its value never depends on a statement's envelope.
  BoundExprPtr bindRow(const ast::Expr& e) { return ExprBinder(binder_, row_).bind(e); }
  // A DEFAULT or CHECK: it also reads the mutation context.
  BoundExprPtr bindRule(const ast::Expr& e) { return ExprBinder(binder_, rules_).bind(e); }

 private:
  Binder& binder_;
  Binder::CteIsolation isolation_;
  Scope row_;
  std::string home_;  // the binder's home schema before, restored after
  Scope rules_;
};

// `evaluated` (per column; null = every column) names the DEFAULTs the statement can run
// (evaluatedDefaults); only those are bound.
BoundTableRules bindRules(Binder& binder, const TableSchema& t, const std::vector<bool>* evaluated = nullptr) {
  TableExprBinder bind(binder, t);
  BoundTableRules r;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const ColumnSchema& c = t.columns[i];
    bool bound = c.defaultExpr && (!evaluated || (*evaluated)[i]);
    r.defaults.push_back(bound ? bind.bindRule(*c.defaultExpr) : nullptr);
    r.generated.push_back(c.generated ? bind.bindRow(*c.generated) : nullptr);
  }
  for (const CheckConstraint& ck : t.checks) r.checks.push_back(bind.bindRule(*ck.expr));
  for (const IndexSchema& ix : t.indexes) r.partial.push_back(ix.where ? bind.bindRow(*ix.where) : nullptr);
  if (const Binder::BoundaryRules* b = binder.boundaryRulesFor(t)) {
    for (const LensRowRule& rule : *b->rules) {
      if (lowerName(rule.basisTable) != lowerName(t.name)) continue;
      if (rule.foreignKey && !binder.ctx().settings().foreignKeys) continue;
      r.boundary.push_back(BoundTableRules::BoundaryRule{bind.bindRule(*rule.expr), rule.message, rule.onInsert,
                                                         rule.onUpdate, rule.onDelete});
    }
  }
  return r;
}

// The CHECKs of every table reachable from `target` through foreign keys (children, their
// children, …), so a row a parent's ON DELETE / ON UPDATE action writes is checked. Only the
// CHECKs are bound: an action writes the child's key columns, never a DEFAULT it did not name.
CascadeRules bindCascadeRules(Binder& binder, const std::shared_ptr<Table>& target) {
  CascadeRules out;
  std::vector<const Table*> parents{target.get()};
  Catalog& cat = binder.ctx().catalog();
  for (size_t next = 0; next < parents.size(); ++next) {
    const TableSchema& parent = parents[next]->schema();
    for (const auto& [schemaName, s] : cat.schemas()) {
      for (const auto& [key, child] : s.tables) {
        const TableSchema& c = child->schema();
        bool references = std::any_of(c.foreignKeys.begin(), c.foreignKeys.end(), [&](const ForeignKey& fk) {
          return fk.parentSchema == parent.schemaName && lowerName(fk.parentTable) == lowerName(parent.name);
        });
        if (!references || out.count(child.get())) continue;
        BoundTableRules& r = out[child.get()];
        r.defaults.resize(c.columns.size());
        r.generated.resize(c.columns.size());
        TableExprBinder bind(binder, c);
        for (const CheckConstraint& ck : c.checks) r.checks.push_back(bind.bindRule(*ck.expr));
        parents.push_back(child.get());
      }
    }
  }
  return out;
}

// The statement's `with context v = expr, …` for `t`, bound in the statement's scope (its CTEs
// are visible); a name `t` does not declare is ignored (mutation_context.h).
MutationContext bindMutationContext(Binder& binder, const TableSchema& t,
                                    const std::vector<ast::ContextAssignment>& supplied) {
  std::vector<BoundExprPtr> values(t.contextVariables.size());
  Scope none;
  for (const ast::ContextAssignment& a : supplied) {
    int v = t.findContextVariable(a.name);
    if (v < 0) continue;
    if (values[v]) fail("mutation context variable '" + a.name + "' is supplied more than once");
    values[v] = ExprBinder(binder, none).bind(*a.value);
  }
  return MutationContext(t, std::move(values));
}

// The column an UPDATE (or a DO UPDATE arm) assigns: one of the table's, and not generated.
int assignedColumn(const TableSchema& t, const std::string& name) {
  int idx = t.findColumn(name);
  if (idx < 0) fail("Column '" + name + "' not found in table '" + t.name + "'");
  if (t.columns[idx].generated) fail("Cannot UPDATE generated column '" + t.columns[idx].name + "'");
  return idx;
}

// A RETURNING list may not name the row image its statement does not have: OLD in an INSERT
// (unless a DO UPDATE arm may replace a stored row), NEW in a DELETE.
void rejectQualifier(const std::vector<ast::ResultColumn>& cols, const char* qualifier, const char* statement) {
  auto named = [&](const std::string& q) { return lowerName(q) == qualifier; };
  for (const auto& rc : cols) {
    const ast::Expr* bad = nullptr;
    if (rc.expr) {
      ast::anyExpr(*rc.expr, [&](const ast::Expr& x) {
        if (x.kind == ast::ExprKind::kColumn && named(x.table)) bad = &x;
        return bad != nullptr;
      }, false);
    }
    if (bad || (rc.kind == ast::ResultColumn::Kind::kTableStar && named(rc.table))) {
      std::string upper = qualifier;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      throw Error(ErrorCode::kError, upper + " qualifier cannot be used in " + statement + " RETURNING clause",
                  bad ? bad->pos.line : 0, bad ? bad->pos.column : 0);
    }
  }
}

// A RETURNING list over `scope`, into `target`: its columns, and expressions over rowContext(new, old).
void bindReturning(Binder& binder, const std::vector<ast::ResultColumn>& cols, const Scope& scope, BoundTarget& target) {
  const TableSchema& t = target.table->schema();
  std::vector<BoundExprPtr>& out = target.returning;
  std::vector<OutputColumn> names;
  for (const auto& rc : cols) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) {
      std::string q = rc.kind == ast::ResultColumn::Kind::kTableStar ? lowerName(rc.table) : "";
      int base = 0;
      if (!q.empty()) {
        if (q == "new") base = static_cast<int>(t.columns.size());
        else if (q == "old") base = 2 * static_cast<int>(t.columns.size());
        else if (q != lowerName(scope.columns.empty() ? "" : scope.columns[0].table)) {
          fail("'" + rc.table + "' not found in FROM clause for qualified RETURNING *");
        }
      }
      for (size_t i = 0; i < t.columns.size(); ++i) {
        out.push_back(makeColumnRef(0, base + static_cast<int>(i), t.columns[i].type));
        names.push_back(OutputColumn{t.columns[i].name, t.columns[i].type});
      }
      continue;
    }
    out.push_back(ExprBinder(binder, scope).bind(*rc.expr));
    OutputColumn oc;
    if (!rc.alias.empty()) oc.name = rc.alias;
    else if (rc.expr->kind == ast::ExprKind::kColumn) {
      std::string q = lowerName(rc.expr->table);
      oc.name = (q == "new" || q == "old") ? rc.expr->table + "." + rc.expr->name : rc.expr->name;
    } else {
      oc.name = printExpr(*rc.expr);
    }
    oc.type = out.back()->type;
    names.push_back(oc);
  }
  std::map<std::string, int> seen;
  for (auto& c : names) {
    int& n = seen[c.name];
    if (n > 0) c.name += ":" + std::to_string(n);
    ++n;
  }
  target.hasReturning = true;
  target.returningColumns = std::move(names);
}

std::shared_ptr<Table> resolveTarget(Binder& binder, const ast::QualifiedName& name) {
  Catalog& cat = binder.ctx().catalog();
  if (isCommittedName(cat, name)) fail("Cannot modify committed-state table 'committed." + name.name + "'");
  std::string schema = binder.resolveTableSchema(name);
  if (cat.findView(schema, name.name)) fail("not supported yet: writing through view '" + name.name + "'");
  std::shared_ptr<Table> t = cat.findTable(schema, name.name);
  if (!t) throw Error(ErrorCode::kNotFound, "Table '" + name.name + "' not found", name.pos.line, name.pos.column);
  // Only maintenance writes a maintained table; DML naming it goes through its derivation.
  if (t->schema().derivation) fail("cannot write maintained table '" + name.name + "' directly (READONLY)");
  binder.reads().writeTarget(t);  // RETURNING surfaces the target (change scope)
  return t;
}

// ---- INSERT ----------------------------------------------------------------------------------

// True when a DO UPDATE arm may replace a stored row.
bool mayUpdate(const ast::Insert& ins) {
  return std::any_of(ins.upserts.begin(), ins.upserts.end(), [](const ast::Upsert& u) { return !u.doNothing; });
}

// The table column each source column fills: those listed, else every non-generated column.
std::vector<int> insertedColumns(const TableSchema& t, const ast::Insert& ins) {
  std::vector<int> columns;
  if (ins.columns.empty()) {
    for (size_t i = 0; i < t.columns.size(); ++i) if (!t.columns[i].generated) columns.push_back(static_cast<int>(i));
    return columns;
  }
  for (const std::string& c : ins.columns) {
    int idx = t.findColumn(c);
    if (idx < 0) fail("Column '" + c + "' not found in table '" + t.name + "'");
    if (t.columns[idx].generated) fail("Cannot INSERT into generated column '" + t.columns[idx].name + "'");
    if (std::find(columns.begin(), columns.end(), idx) != columns.end()) {
      fail("Column '" + c + "' specified more than once");
    }
    columns.push_back(idx);
  }
  return columns;
}

// Per column of `t`: whether the INSERT supplies it (one of `columns`).
std::vector<bool> suppliedColumns(const TableSchema& t, const std::vector<int>& columns) {
  std::vector<bool> supplied(t.columns.size(), false);
  for (int c : columns) supplied[c] = true;
  return supplied;
}

// A DEFAULT the INSERT evaluates may read only siblings the INSERT supplies (`new.<col>`):
// another column's default or a generated value would make the result depend on an order
// of evaluation. And it is checked for determinism against the pragma as it is now (a table
// created under `nondeterministic_schema` keeps its DEFAULT, but strict mode refuses to run it).
void checkEvaluatedDefaults(Context& ctx, const TableSchema& t, const std::vector<int>& columns) {
  std::vector<bool> supplied = suppliedColumns(t, columns);
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const ast::Expr* d = t.columns[i].defaultExpr;
    if (supplied[i] || !d) continue;
    requireDeterministic(*d, ctx, "DEFAULT");
    const ast::Expr* missing = nullptr;
    ast::anyExpr(*d, [&](const ast::Expr& x) {
      if (x.kind != ast::ExprKind::kColumn || lowerName(x.table) != "new") return false;
      int c = t.findColumn(x.name);
      if (c >= 0 && !supplied[c]) missing = &x;
      return missing != nullptr;
    }, true);
    if (missing) {
      throw Error(ErrorCode::kError,
                  "new." + missing->name + " isn't a column this INSERT supplies (read by the DEFAULT of '" +
                      t.columns[i].name + "')",
                  missing->pos.line, missing->pos.column);
    }
  }
}

// Every DEFAULT the INSERT evaluates and every CHECK it runs (the UPDATE-scoped ones too when a
// DO UPDATE arm may run) reads only context variables the statement supplies.
void requireInsertContext(const TableSchema& t, const ast::Insert& ins, const std::vector<int>& columns,
                          const MutationContext& context) {
  std::vector<bool> supplied = suppliedColumns(t, columns);
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (!supplied[i] && t.columns[i].defaultExpr) context.requireSupplied(*t.columns[i].defaultExpr);
  }
  bool doUpdate = mayUpdate(ins);
  for (const CheckConstraint& ck : t.checks) {
    if (ck.onInsert || (doUpdate && ck.onUpdate)) context.requireSupplied(*ck.expr);
  }
}

// An ON CONFLICT clause: its DO UPDATE scope is existing row ‖ proposed (excluded.*, new.*).
BoundUpsert bindUpsert(Binder& binder, const TableSchema& t, const std::string& alias, const ast::Upsert& u) {
  BoundUpsert bu;
  bu.doNothing = u.doNothing;
  for (const auto& c : u.target) {
    int idx = t.findColumn(c.name);
    if (idx < 0) fail("Column '" + c.name + "' not found in table '" + t.name + "'");
    bu.target.push_back(idx);
  }
  Scope us = layeredRowScope(t, alias, {"excluded", "new"});
  for (const ast::Assignment& a : u.set) {
    int idx = assignedColumn(t, a.column);
    bu.set.emplace_back(idx, ExprBinder(binder, us).bind(*a.value));
  }
  if (u.where) bu.where = ExprBinder(binder, us).bind(*u.where);
  bu.cells = updatedCells(t, bu.set);
  return bu;
}

// An INSERT into a base table.
BoundInsert bindBaseInsert(Binder& binder, const ast::Insert& ins, DefaultTiming timing) {
  Binder::WithScope statementWith(binder, ins.with.get());
  BoundInsert b;
  b.timing = timing;
  b.orAction = ins.orAction;
  b.target.table = resolveTarget(binder, ins.table);
  const TableSchema& t = b.target.table->schema();
  b.columns = insertedColumns(t, ins);
  checkEvaluatedDefaults(binder.ctx(), t, b.columns);
  b.cells.assign(t.columns.size(), CellSource::kDefault);
  if (!ins.defaultValues) {
    QueryPlan src = ins.sourceDml ? binder.bindDmlRelation(*ins.sourceDml, ins.sourceDml->pos)
                                  : binder.bindQuery(*ins.source, nullptr);
    if (src.columns.size() != b.columns.size()) {
      fail("Column count mismatch: table " + t.name + " has " + std::to_string(b.columns.size()) + " columns but " +
           std::to_string(src.columns.size()) + " values were supplied");
    }
    b.source = std::move(src.root);
    for (size_t i = 0; i < b.columns.size(); ++i) {
      b.cells[b.columns[i]] = assignedCell(src.columns[i].type, t.columns[b.columns[i]].type);
    }
  }
  std::vector<bool> evaluated = evaluatedDefaults(t, b.cells, ins.orAction);
  b.target.rules = bindRules(binder, t, &evaluated);
  b.target.cascades = bindCascadeRules(binder, b.target.table);
  b.target.context = bindMutationContext(binder, t, ins.context);
  requireInsertContext(t, ins, b.columns, b.target.context);
  if (ins.hasReturning) {
    if (!mayUpdate(ins)) rejectQualifier(ins.returning, "old", "INSERT");
    bindReturning(binder, ins.returning, rowScope(t, ins.alias), b.target);
  }
  for (const ast::Upsert& u : ins.upserts) b.upserts.push_back(bindUpsert(binder, t, ins.alias, u));
  return b;
}

// ---- UPDATE / DELETE -------------------------------------------------------------------------

// The rows a WHERE clause selects from the target table, and the scope the statement's SET and
// RETURNING bind over.
struct TargetRows {
  Scope scope;
  OperatorPtr op;
};

TargetRows bindTargetRows(Binder& binder, const std::shared_ptr<Table>& table, const std::string& alias,
                          const ast::Expr* where) {
  const TableSchema& t = table->schema();
  std::string q = alias.empty() ? t.name : alias;
  TargetRows rows;
  rows.scope = rowScope(t, q);
  // Scan + filter over the plain table row; the filter sees new == old == the row, and leaves
  // out what the scan answers exactly.
  AccessRequest access;
  rows.op = planTableAccess(binder, table, q, where, nullptr, &access);
  if (where) rows.op = binder.filterOf(std::move(rows.op), *where, access.enforced, layeredRowScope(t, q, {}));
  return rows;
}

// The mutation context of an UPDATE or DELETE of `t`: every CHECK the statement runs (`runs`:
// onUpdate or onDelete) needs the context variables it reads supplied.
MutationContext bindCheckedContext(Binder& binder, const TableSchema& t,
                                   const std::vector<ast::ContextAssignment>& supplied, bool CheckConstraint::*runs) {
  MutationContext context = bindMutationContext(binder, t, supplied);
  for (const CheckConstraint& ck : t.checks) {
    if (ck.*runs) context.requireSupplied(*ck.expr);
  }
  return context;
}

// An UPDATE of a base table.
BoundUpdate bindBaseUpdate(Binder& binder, const ast::Update& up) {
  Binder::WithScope statementWith(binder, up.with.get());
  if (up.orAction != ConflictAction::kNone) fail("UPDATE OR … is not supported");
  if (up.targetSelect) fail("not supported yet: UPDATE of a subquery");
  BoundUpdate b;
  b.target.table = resolveTarget(binder, up.table);
  const TableSchema& t = b.target.table->schema();
  TargetRows rows = bindTargetRows(binder, b.target.table, up.alias, up.where.get());
  b.rows = std::move(rows.op);
  std::vector<bool> assigned(t.columns.size(), false);
  for (const ast::Assignment& a : up.set) {
    int idx = assignedColumn(t, a.column);
    if (assigned[idx]) fail("duplicate assignment to column " + t.columns[idx].name);
    assigned[idx] = true;
    b.set.emplace_back(idx, ExprBinder(binder, rows.scope).bind(*a.value));
  }
  b.cells = updatedCells(t, b.set);
  std::vector<bool> evaluated = evaluatedDefaults(t, b.cells, up.orAction);
  b.target.rules = bindRules(binder, t, &evaluated);
  b.target.cascades = bindCascadeRules(binder, b.target.table);
  b.target.context = bindCheckedContext(binder, t, up.context, &CheckConstraint::onUpdate);
  if (up.hasReturning) bindReturning(binder, up.returning, rows.scope, b.target);
  return b;
}

// A DELETE from a base table.
BoundDelete bindBaseDelete(Binder& binder, const ast::Delete& del) {
  Binder::WithScope statementWith(binder, del.with.get());
  if (del.orAction != ConflictAction::kNone) fail("DELETE OR … is not supported");
  if (del.targetSelect) fail("not supported yet: DELETE from a subquery");
  BoundDelete b;
  b.target.table = resolveTarget(binder, del.table);
  const TableSchema& t = b.target.table->schema();
  TargetRows rows = bindTargetRows(binder, b.target.table, del.alias, del.where.get());
  b.rows = std::move(rows.op);
  b.target.rules = bindRules(binder, t);
  b.target.cascades = bindCascadeRules(binder, b.target.table);
  b.target.context = bindCheckedContext(binder, t, del.context, &CheckConstraint::onDelete);
  if (del.hasReturning) {
    rejectQualifier(del.returning, "new", "DELETE");
    bindReturning(binder, del.returning, rows.scope, b.target);
  }
  return b;
}

}  // namespace

std::unique_ptr<DmlPlan> bindInsert(Binder& binder, const ast::Insert& insert, DefaultTiming timing) {
  validateStatementTags(insert.tags);
  Binder::SchemaPathScope statementPath(binder, insert.withSchema);
  if (auto throughView = bindViewInsert(binder, insert)) return throughView;
  return makeInsertPlan(binder.ctx(), bindBaseInsert(binder, insert, timing));
}
std::unique_ptr<DmlPlan> bindUpdate(Binder& binder, const ast::Update& update) {
  validateStatementTags(update.tags);
  Binder::SchemaPathScope statementPath(binder, update.withSchema);
  if (auto throughView = bindViewUpdate(binder, update)) return throughView;
  return makeUpdatePlan(binder.ctx(), bindBaseUpdate(binder, update));
}
std::unique_ptr<DmlPlan> bindDelete(Binder& binder, const ast::Delete& del) {
  validateStatementTags(del.tags);
  Binder::SchemaPathScope statementPath(binder, del.withSchema);
  if (auto throughView = bindViewDelete(binder, del)) return throughView;
  return makeDeletePlan(binder.ctx(), bindBaseDelete(binder, del));
}

BoundExprPtr bindCheck(Binder& binder, const TableSchema& t, const CheckConstraint& ck) {
  return TableExprBinder(binder, t).bindRule(*ck.expr);
}

}  // namespace optic
