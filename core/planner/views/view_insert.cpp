// INSERT through a view (view_mutation.h): lowered level by level down to the base table.
//
// A PendingInsert is the insert as seen at one level: its target column names, its rows (a
// VALUES source, cloned so each level can rewrite them) or an opaque SELECT source, and the
// fills of omitted columns gathered so far — predicate pins and `with defaults` entries, each
// named by a column of the level below (outer levels win). At the base table the fills are
// appended for the columns still unsupplied, and a NOT NULL column no one fills is the
// `no-default` rejection.
#include <set>

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/planner/binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/planner/views/view_lowering.h"
#include "core/planner/views/view_mutation.h"

namespace optic {
namespace {

using ast::ExprKind;
using ast::ExprPtr;
using namespace lowering;

struct Fill {
  std::string column;
  const ast::Expr* value = nullptr;  // into a body AST (alive for the binding)
};

struct PendingInsert {
  std::vector<std::string> columns;
  std::vector<std::vector<ExprPtr>> rows;  // VALUES source
  ast::SelectPtr select;                   // any other source
  bool defaultValues = false;
  std::vector<Fill> pins;
  std::vector<Fill> defaults;
};

bool isPlainValues(const ast::Select& s) {
  return s.setOp == ast::SetOp::kNone && !s.values.empty() && s.orderBy.empty() && !s.limit && !s.with;
}

PendingInsert fromStatement(const ast::Insert& ins) {
  PendingInsert p;
  p.columns = ins.columns;
  if (ins.defaultValues) {
    p.defaultValues = true;
  } else if (isPlainValues(*ins.source)) {
    for (const auto& row : ins.source->values) {
      std::vector<ExprPtr> r;
      for (const ExprPtr& e : row) r.push_back(ast::clone(*e));
      p.rows.push_back(std::move(r));
    }
  } else {
    p.select = ast::clone(*ins.source);
  }
  return p;
}

int indexOf(const std::vector<std::string>& names, const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i) if (lowerName(names[i]) == lowerName(name)) return static_cast<int>(i);
  return -1;
}

// The view columns an insert without a column list supplies: those with base lineage.
std::vector<std::string> implicitColumns(const SingleSource& s) {
  std::vector<std::string> out;
  for (const BodyColumn& c : s.columns) {
    if (c.kind == ColumnClass::kPassthrough || c.kind == ColumnClass::kAuthored) out.push_back(c.name);
  }
  return out;
}

void checkRowWidths(const PendingInsert& p, const WriteTarget& t) {
  for (const auto& row : p.rows) {
    if (row.size() == p.columns.size()) continue;
    fail("Column count mismatch: table " + t.name + " has " + std::to_string(p.columns.size()) + " columns but " +
         std::to_string(row.size()) + " values were supplied");
  }
}

void rejectContradictions(const PendingInsert& p, const SingleSource& s, const WriteTarget& user) {
  for (const BodyPin& pin : s.pins) {
    int i = indexOf(p.columns, pin.baseColumn);
    if (i < 0) continue;
    for (const auto& row : p.rows) rejectContradiction(user, pin.baseColumn, *row[i], *pin.value);
  }
}

// Renames fills named by this level's view columns to the source columns they write.
void mapFills(std::vector<Fill>& fills, const SingleSource& s) {
  std::vector<Fill> out;
  for (Fill& f : fills) {
    const BodyColumn* c = findBodyColumn(s, f.column);
    if (!c) {
      out.push_back(f);
    } else if (c->kind == ColumnClass::kPassthrough) {
      out.push_back(Fill{c->baseColumn, f.value});
    }
  }
  fills = std::move(out);
}

void addFill(std::vector<Fill>& fills, Fill f) {
  if (indexOf([&] {
        std::vector<std::string> names;
        for (const Fill& x : fills) names.push_back(x.column);
        return names;
      }(), f.column) < 0) {
    fills.push_back(f);
  }
}

// One level: view columns become source columns; gathers this level's pins and defaults.
void lowerLevel(PendingInsert& p, const WriteTarget& t, const SingleSource& s, const ViewRewrite& r,
                const WriteTarget& user) {
  if (p.columns.empty()) p.columns = implicitColumns(s);
  checkRowWidths(p, t);
  std::vector<std::string> cols;
  std::vector<std::vector<ExprPtr>> rows(p.rows.size());
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const BodyColumn& c = requireViewColumn(r, p.columns[i]);
    if (c.kind == ColumnClass::kPassthrough) {
      cols.push_back(c.baseColumn);
      for (size_t k = 0; k < p.rows.size(); ++k) rows[k].push_back(ast::clone(*p.rows[k][i]));
      continue;
    }
    if (c.kind != ColumnClass::kAuthored) readOnly(r, c);
    if (p.select || p.defaultValues) {
      rejectInsert(user, "unsupported-source", c.name, "evaluating authored puts requires a VALUES source");
    }
    for (const ast::InversePut& put : c.authored->inverse) {
      cols.push_back(put.column);
      for (size_t k = 0; k < p.rows.size(); ++k) {
        rows[k].push_back(authoredPut(r, put, [&](const std::string& x) {
          int j = indexOf(p.columns, x);
          return j >= 0 ? ast::clone(*p.rows[k][j]) : makeNull();
        }));
      }
    }
  }
  p.columns = std::move(cols);
  p.rows = std::move(rows);
  rejectContradictions(p, s, user);
  mapFills(p.pins, s);
  mapFills(p.defaults, s);
  for (const BodyPin& pin : s.pins) addFill(p.pins, Fill{pin.baseColumn, pin.value});
  if (t.defaults) {
    for (const ast::ViewColumnDefault& d : *t.defaults) addFill(p.defaults, Fill{d.column, d.expr.get()});
  }
}

// At the base table: appends the fills still needed and checks every NOT NULL column is set.
void finishAtBase(PendingInsert& p, const TableSchema& base, const WriteTarget& user) {
  std::set<std::string> supplied;
  for (const std::string& c : p.columns) supplied.insert(lowerName(c));
  std::vector<Fill> fills;
  for (const Fill& f : p.pins) {
    if (supplied.count(lowerName(f.column)) || base.findColumn(f.column) < 0) continue;
    supplied.insert(lowerName(f.column));
    fills.push_back(f);
  }
  for (const Fill& f : p.defaults) {
    if (supplied.count(lowerName(f.column))) continue;
    if (base.findColumn(f.column) < 0) {
      rejectInsert(user, "default-target-not-found", f.column,
                   "WITH DEFAULTS target '" + f.column + "' is not a column of base table '" + base.name + "'");
    }
    supplied.insert(lowerName(f.column));
    fills.push_back(f);
  }
  if (!fills.empty()) {
    if (p.select) {
      rejectInsert(user, "unsupported-source", fills.front().column,
                   "supplying selection-predicate defaults requires a VALUES source");
    }
    if (p.defaultValues) {
      p.defaultValues = false;
      p.rows.emplace_back();
    }
    for (const Fill& f : fills) {
      p.columns.push_back(f.column);
      for (auto& row : p.rows) row.push_back(ast::clone(*f.value));
    }
  }
  for (const ColumnSchema& c : base.columns) {
    if (c.generated || !c.notNull || c.defaultExpr || supplied.count(lowerName(c.name))) continue;
    rejectUnsuppliedNotNull(user, base.name, c.name);
  }
}

std::unique_ptr<ast::Statement> buildInsert(const ast::Insert& ins, PendingInsert p, ast::QualifiedName table,
                                            std::string alias, const ast::WithClause* with,
                                            std::vector<ast::ResultColumn> returning) {
  auto out = std::make_unique<ast::Insert>();
  if (with) out->with = ast::clone(*with);
  out->orAction = ins.orAction;
  out->table = std::move(table);
  out->alias = std::move(alias);
  out->columns = std::move(p.columns);
  out->defaultValues = p.defaultValues;
  if (p.select) {
    out->source = std::move(p.select);
  } else if (!p.defaultValues) {
    out->source = std::make_unique<ast::Select>();
    out->source->values = std::move(p.rows);
  }
  out->context = cloneContext(ins.context);
  out->withSchema = ins.withSchema;
  out->returning = std::move(returning);
  out->hasReturning = ins.hasReturning;
  out->tags = ins.tags;
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kInsert;
  stmt->insert = std::move(out);
  return stmt;
}

void rejectUnsupportedInsert(Binder& binder, const ast::Insert& ins, const WriteTarget& t) {
  rejectUnwritableShape(binder, t, "insert");
  if (isJoinBody(*t.body)) {
    rejectInsert(t, "nested-view", "", "its body reads a join view; nested-view mutation is not yet supported");
  }
  if (ins.sourceDml) rejectInsert(t, "unsupported-source", "", "a DML source is not supported through a view");
  if (!ins.upserts.empty()) rejectInsert(t, "unsupported-source", "", "ON CONFLICT is not supported through a view");
}

std::vector<ast::ResultColumn> cloneColumns(const std::vector<ast::ResultColumn>& in) {
  std::vector<ast::ResultColumn> out;
  for (const ast::ResultColumn& rc : in) out.push_back(ast::clone(rc));
  return out;
}

}  // namespace

std::unique_ptr<ast::Statement> lowerViewInsert(Binder& binder, const ast::Insert& ins) {
  std::optional<WriteTarget> t = resolveWriteTarget(binder, ins.table, ins.alias, ins.with.get(), nullptr, {});
  if (!t || isJoinBody(*t->body)) return nullptr;
  const WriteTarget user = *t;
  PendingInsert p = fromStatement(ins);
  std::vector<ast::ResultColumn> returning = cloneColumns(ins.returning);
  std::vector<std::unique_ptr<ast::WithClause>> withs;  // each level's WITH (target CTE removed)
  const ast::WithClause* with = ins.with.get();
  ast::QualifiedName next;
  std::string alias;
  while (t) {
    rejectUnsupportedInsert(binder, ins, *t);
    SingleSource s = analyseSingleSource(binder, *t, "insert");
    ViewRewrite r{binder, *t, s, "insert"};
    lowerLevel(p, *t, s, r, user);
    if (ins.hasReturning) returning = lowerReturning(returning, r);
    if (s.source->kind != ast::FromItem::Kind::kTable) {
      rejectInsert(user, "unsupported-source", "", "its body reads a subquery, which cannot take an insert");
    }
    next = sourceName(binder, *t, *s.source);
    alias = s.qualifier;
    withs.push_back(loweredWith(with, *t));
    with = withs.back().get();
    t = resolveWriteTarget(binder, next, alias, with, nullptr, {});
  }
  Catalog& cat = binder.ctx().catalog();
  if (auto base = cat.findTable(binder.resolveTableSchema(next), next.name)) finishAtBase(p, base->schema(), user);
  return buildInsert(ins, std::move(p), std::move(next), std::move(alias), with, std::move(returning));
}

}  // namespace optic
