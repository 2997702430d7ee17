// Writes through join view bodies (join_mutation.h).
#include "core/planner/views/join_mutation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/execution/operator.h"
#include "core/parser/ast_clone.h"
#include "core/planner/binder.h"
#include "core/planner/dml_binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/planner/views/join_body.h"
#include "core/planner/views/view_lowering.h"
#include "core/planner/views/view_substitution.h"

namespace optic {
namespace {

using ast::ExprKind;
using ast::ExprPtr;
using namespace lowering;

constexpr const char* kCapture = "__view_capture";

std::string keyName(size_t side, size_t n) { return "k" + std::to_string(side) + "_" + std::to_string(n); }
std::string valueName(size_t m) { return "v" + std::to_string(m); }

ExprPtr isNotNullExpr(ExprPtr x) {
  ExprPtr e = isNullExpr(std::move(x));
  e->negated = true;
  return e;
}

// `capture.k<side>_n = q.pk_n and …` for one side. A nullable key column matches NULL-safely
// (a NULL in a key is an ordinary self-equal value, sql-core.md §3.1), and so does every key
// column of a null-extendable side: a null-extended row's key is NULL in the capture and in a
// re-query of the join alike.
ExprPtr keysMatch(const JoinSide& s, size_t side, const std::string& q) {
  ExprPtr out;
  const TableSchema& t = s.schema();
  for (size_t n = 0; n < t.primaryKey.size(); ++n) {
    const ColumnSchema& c = t.columns[t.primaryKey[n].column];
    ExprPtr eq = makeBinary("=", makeColumn(kCapture, keyName(side, n)), makeColumn(q, c.name));
    if (!c.notNull || !s.preserved) {
      ExprPtr bothNull = makeBinary("and", isNullExpr(makeColumn(kCapture, keyName(side, n))), isNullExpr(makeColumn(q, c.name)));
      eq = makeBinary("or", std::move(eq), std::move(bothNull));
    }
    out = conjoin(std::move(out), std::move(eq));
  }
  return out;
}

std::string matchName(size_t side) { return "m" + std::to_string(side); }

// The captured row's side row: its key, and for a flagged null-extendable side, the match flag
// (a partner keyed NULL matched; a null-extended row did not).
ExprPtr sideRowMatch(const JoinBody& j, size_t side, const std::string& q) {
  ExprPtr keys = keysMatch(j.sides[side], side, q);
  if (!j.matchFlagged[side]) return keys;
  return conjoin(std::move(keys), makeColumn(kCapture, matchName(side)));
}

// The captured row had no partner on null-extendable `side`: its match flag not true (NULL when
// an enclosing outer join null-extended the flag itself), else (unflagged) its captured key NULL.
ExprPtr unmatchedRow(const JoinBody& j, size_t side) {
  if (!j.matchFlagged[side]) return isNullExpr(makeColumn(kCapture, keyName(side, 0)));
  return isNotTrue(makeColumn(kCapture, matchName(side)));
}

std::unique_ptr<ast::Select> captureSelect(ExprPtr where, std::vector<ast::ResultColumn> columns, bool limitOne) {
  auto sel = selectFrom(kCapture, std::move(where), std::move(columns));
  if (limitOne) sel->limit = literalExpr(Value::integer(1));
  return sel;
}

ExprPtr existsIn(ExprPtr where) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kExists;
  std::vector<ast::ResultColumn> one;
  one.push_back(aliased(literalExpr(Value::integer(1)), ""));
  e->select = captureSelect(std::move(where), std::move(one), false);
  return e;
}

ExprPtr capturedValue(const JoinBody& j, size_t side, size_t m) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kSubquery;
  std::vector<ast::ResultColumn> cols;
  cols.push_back(aliased(makeColumn(kCapture, valueName(m)), ""));
  e->select = captureSelect(sideRowMatch(j, side, j.sides[side].qualifier), std::move(cols), true);
  return e;
}

// The capture query: every side's key, then the given values, over the join body.
std::unique_ptr<ast::Select> captureQuery(const JoinBody& j, const WriteTarget& t, ExprPtr userWhere,
                                          std::vector<ExprPtr> values) {
  auto sel = std::make_unique<ast::Select>();
  for (size_t i = 0; i < j.sides.size(); ++i) {
    const TableSchema& ts = j.sides[i].schema();
    for (size_t n = 0; n < ts.primaryKey.size(); ++n) {
      sel->columns.push_back(aliased(makeColumn(j.sides[i].qualifier, ts.columns[ts.primaryKey[n].column].name), keyName(i, n)));
    }
  }
  for (size_t m = 0; m < values.size(); ++m) sel->columns.push_back(aliased(std::move(values[m]), valueName(m)));
  sel->from = ast::clone(*t.body->from);
  std::vector<std::string> flags = flagNullExtendableSides(*sel->from, j);
  for (size_t i = 0; i < flags.size(); ++i) {
    if (!flags[i].empty()) sel->columns.push_back(aliased(makeColumn("", flags[i]), matchName(i)));
  }
  sel->where = conjoin(std::move(userWhere), ast::cloneOrNull(t.body->where.get()));
  return sel;
}

// ---- the plan ----------------------------------------------------------------------------------

class JoinWritePlan final : public DmlPlan {
 public:
  std::vector<std::unique_ptr<ast::Select>> queries;      // ASTs the bound plans came from
  std::vector<std::unique_ptr<ast::Statement>> statements;
  std::unique_ptr<ast::WithClause> with;
  std::shared_ptr<std::vector<Row>> captured = std::make_shared<std::vector<Row>>();
  OperatorPtr capture;
  std::vector<std::unique_ptr<DmlPlan>> sides;
  OperatorPtr returning;
  bool returningFirst = false;  // DELETE: the pre-mutation image
  bool anchorFirst = false;           // INSERT: sides[0] mints the shared key
  std::vector<size_t> mintOrdinals;   // the VALUES rows the anchor inserts, in order

  // The anchor's RETURNING rows are the minted keys, one per row it inserts, in order.
  void captureMinted(std::vector<Row> rows) {
    if (rows.size() != mintOrdinals.size()) {
      fail("cannot insert through a join view: the anchor side skipped a row, so its minted key cannot be threaded");
    }
    captured->clear();
    for (size_t r = 0; r < rows.size(); ++r) {
      captured->push_back(Row{Value::integer(static_cast<int64_t>(mintOrdinals[r])), rows[r].at(0)});
    }
  }

  void setReturning(QueryPlan plan, bool first) {
    hasReturning_ = true;
    returningFirst = first;
    returning_ = plan.columns;
    returning = std::move(plan.root);
  }

  std::vector<Row> execute(ExecState& st) override {
    if (capture) *captured = drain(*capture, st, nullptr);
    std::vector<Row> out;
    if (returning && returningFirst) out = drain(*returning, st, nullptr);
    changes_ = 0;
    for (size_t i = 0; i < sides.size(); ++i) {
      std::vector<Row> rows = sides[i]->execute(st);
      if (i == 0 && anchorFirst) captureMinted(std::move(rows));
      changes_ = std::max(changes_, sides[i]->changes());  // each view row writes each side once at most
    }
    if (returning && !returningFirst) out = drain(*returning, st, nullptr);
    return out;
  }
};

// Binds the capture and the per-side statements with the statement's WITH and the capture
// relation in scope.
class JoinBinding {
 public:
  // `names`, when given, renames the capture's columns positionally (an INSERT's SELECT source,
  // whose output names are the user's); their count must match the capture's width.
  JoinBinding(Binder& binder, JoinWritePlan& plan, const ast::WithClause* with, const WriteTarget& t,
              std::unique_ptr<ast::Select> capture, const std::vector<std::string>& names = {})
      : binder_(binder), plan_(plan) {
    plan.with = loweredWith(with, t);
    binder.pushWith(plan.with.get());
    QueryPlan q = binder.bindQuery(*capture, nullptr);
    if (!names.empty()) {
      if (q.columns.size() != names.size()) {
        binder.popWith();
        fail("Column count mismatch: view " + t.name + " has " + std::to_string(names.size()) + " columns but " +
             std::to_string(q.columns.size()) + " values were supplied");
      }
      for (size_t i = 0; i < names.size(); ++i) q.columns[i].name = names[i];
    }
    plan.queries.push_back(std::move(capture));
    plan.capture = std::move(q.root);
    binder.pushRowSource(kCapture, plan.captured, q.columns);
  }
  ~JoinBinding() {
    binder_.popWith();
    binder_.popWith();
  }
  void addUpdate(std::unique_ptr<ast::Update> up) {
    auto stmt = std::make_unique<ast::Statement>();
    stmt->kind = ast::StatementKind::kUpdate;
    stmt->update = std::move(up);
    plan_.sides.push_back(bindUpdate(binder_, *stmt->update));
    plan_.statements.push_back(std::move(stmt));
  }
  void addInsert(std::unique_ptr<ast::Insert> ins) {
    auto stmt = std::make_unique<ast::Statement>();
    stmt->kind = ast::StatementKind::kInsert;
    stmt->insert = std::move(ins);
    plan_.sides.push_back(bindInsert(binder_, *stmt->insert));
    plan_.statements.push_back(std::move(stmt));
  }
  void addDelete(std::unique_ptr<ast::Delete> del) {
    auto stmt = std::make_unique<ast::Statement>();
    stmt->kind = ast::StatementKind::kDelete;
    stmt->del = std::move(del);
    plan_.sides.push_back(bindDelete(binder_, *stmt->del));
    plan_.statements.push_back(std::move(stmt));
  }
  QueryPlan bindQuery(std::unique_ptr<ast::Select> q) {
    QueryPlan p = binder_.bindQuery(*q, nullptr);
    plan_.queries.push_back(std::move(q));
    return p;
  }

 private:
  Binder& binder_;
  JoinWritePlan& plan_;
};

// RETURNING: the user's items over the join, for the captured rows. A side captured without a
// partner is not part of the row's identity: the write may have materialized one since.
std::unique_ptr<ast::Select> returningQuery(const JoinBody& j, const WriteTarget& t, const ViewRewrite& r,
                                            const std::vector<ast::ResultColumn>& items) {
  auto sel = std::make_unique<ast::Select>();
  sel->columns = lowerReturning(items, r);
  sel->from = ast::clone(*t.body->from);
  ExprPtr match;
  for (size_t i = 0; i < j.sides.size(); ++i) {
    ExprPtr side = sideRowMatch(j, i, j.sides[i].qualifier);
    if (!j.sides[i].preserved) side = makeBinary("or", std::move(side), unmatchedRow(j, i));
    match = conjoin(std::move(match), std::move(side));
  }
  sel->where = existsIn(std::move(match));
  return sel;
}

// ---- UPDATE ------------------------------------------------------------------------------------

struct SideSet {
  int side = -1;
  std::string column;
  std::string viewColumn;
  ExprPtr value;  // over the join body
};

void collectSides(const JoinBody& j, const ast::Expr& e, std::set<int>& out) {
  if (e.kind == ExprKind::kColumn) {
    int s = sideOf(j, e);
    if (s >= 0) out.insert(s);
  }
  for (const ExprPtr& a : e.args) if (a) collectSides(j, *a, out);
  for (const ast::CaseWhen& w : e.whens) {
    collectSides(j, *w.when, out);
    collectSides(j, *w.then, out);
  }
  if (e.elseExpr) collectSides(j, *e.elseExpr, out);
  if (e.select) {
    for (const ast::ResultColumn& rc : e.select->columns) if (rc.expr) collectSides(j, *rc.expr, out);
    if (e.select->where) collectSides(j, *e.select->where, out);
  }
}

void requireSingleValue(const JoinBody& j, const ViewRewrite& r, const SideSet& s) {
  std::set<int> read;
  collectSides(j, *s.value, read);
  for (int partner : read) {
    if (partner == s.side || joinsAtMostOne(j, s.side, partner)) continue;
    failMutation(MutationDiagnostic{"cross-source-ambiguous-cardinality", r.target.name, s.viewColumn, r.op},
                 cannotWrite(r.target) + "the assigned side joins more than one '" + j.sides[partner].qualifier +
                     "' row, so the value assigned to '" + s.viewColumn + "' is not single-valued");
  }
}

// A SET value may read a partner's base column, not a partner's computed view column: its
// value is not recoverable from a captured base column (names inside subqueries are exempt).
void rejectComputedPartnerReads(const JoinBody& j, const ViewRewrite& r, const ast::Expr& value, int owner,
                                const std::string& target) {
  if (value.kind == ExprKind::kColumn) {
    const BodyColumn* c = findBodyColumn(j.view, value.name);
    if (!c || c->kind != ColumnClass::kComputed || !c->expr) return;
    std::set<int> read;
    collectSides(j, *c->expr, read);
    read.erase(owner);
    if (read.empty()) return;
    failMutation(MutationDiagnostic{"cross-source-assignment", r.target.name, target, r.op},
                 cannotWrite(r.target) + "the value assigned to '" + target + "' reads the computed partner column '" +
                     c->name + "', which no captured base column recovers");
  }
  for (const ExprPtr& a : value.args) if (a) rejectComputedPartnerReads(j, r, *a, owner, target);
}

// The side an authored put writes: the side its forward expression reads that has the column,
// else the only side that has it.
int putSide(const JoinBody& j, const BodyColumn& c, const ast::InversePut& p) {
  std::set<int> read;
  collectSides(j, *c.expr, read);
  for (int s : read) if (j.sides[s].schema().findColumn(p.column) >= 0) return s;
  int found = -1;
  for (size_t i = 0; i < j.sides.size(); ++i) {
    if (j.sides[i].schema().findColumn(p.column) < 0) continue;
    if (found >= 0) return -1;
    found = static_cast<int>(i);
  }
  return found;
}

std::vector<SideSet> lowerJoinAssignments(const JoinBody& j, const ViewRewrite& r, const std::vector<ast::Assignment>& set) {
  std::map<std::string, const ast::Expr*> assigned;
  for (const ast::Assignment& a : set) assigned[lowerName(requireViewColumn(r, a.column).name)] = a.value.get();
  auto valueOf = [&](const std::string& x) {
    auto it = assigned.find(lowerName(x));
    if (it != assigned.end()) return toBase(*it->second, r);
    return forwardOf(*findBodyColumn(j.view, x), r, "");
  };
  std::vector<SideSet> out;
  for (const ast::Assignment& a : set) {
    const BodyColumn& c = requireViewColumn(r, a.column);
    size_t idx = static_cast<size_t>(&c - j.view.columns.data());
    if (j.columnFlagOf[idx] >= 0) continue;  // an existence flag: flagAssignments
    if (c.kind == ColumnClass::kAuthored) {
      for (const ast::InversePut& p : c.authored->inverse) {
        int side = putSide(j, c, p);
        if (side < 0) fail("WITH INVERSE target '" + p.column + "' does not resolve to one join side of view '" + r.target.name + "'");
        SideSet s{side, p.column, c.name, authoredPut(r, p, valueOf)};
        requireSingleValue(j, r, s);
        out.push_back(std::move(s));
      }
      continue;
    }
    if (c.kind == ColumnClass::kComputed || j.columnSide[idx] < 0) readOnly(r, c);
    rejectComputedPartnerReads(j, r, *a.value, j.columnSide[idx], c.name);
    ExprPtr v = toBase(*a.value, r);
    if (c.kind == ColumnClass::kInvertible) v = invert(c, std::move(v));
    SideSet s{j.columnSide[idx], c.baseColumn, c.name, std::move(v)};
    requireSingleValue(j, r, s);
    out.push_back(std::move(s));
  }
  return out;
}

// `set hasB = true|false` on a body-named existence flag: the side and the wanted existence.
struct FlagSet {
  int side = -1;
  bool exists = false;
};

std::vector<FlagSet> flagAssignments(const JoinBody& j, const ViewRewrite& r, const std::vector<ast::Assignment>& set,
                                     const std::vector<SideSet>& sets) {
  std::vector<FlagSet> out;
  for (const ast::Assignment& a : set) {
    const BodyColumn& c = requireViewColumn(r, a.column);
    int side = j.columnFlagOf[static_cast<size_t>(&c - j.view.columns.data())];
    if (side < 0) continue;
    FlagSet f{side, flagLiteral(r, c.name, a.value.get())};
    bool writesSide = std::any_of(sets.begin(), sets.end(), [&](const SideSet& s) { return s.side == side; });
    if (!f.exists && writesSide) {
      failMutation(MutationDiagnostic{"conflicting-assignment", r.target.name, c.name, r.op},
                   cannotWrite(r.target) + "'" + c.name + " = false' deletes the '" + j.sides[side].qualifier +
                       "' row that the same UPDATE assigns");
    }
    out.push_back(f);
  }
  return out;
}

std::vector<int> sidesOf(const std::vector<SideSet>& sets) {
  std::vector<int> out;
  for (const SideSet& s : sets) if (std::find(out.begin(), out.end(), s.side) == out.end()) out.push_back(s.side);
  return out;
}

std::unique_ptr<ast::Update> sideUpdate(const JoinBody& j, int side, const std::vector<SideSet>& sets,
                                        const ast::Update& user) {
  const JoinSide& s = j.sides[side];
  auto up = std::make_unique<ast::Update>();
  up->table = s.table;
  up->alias = s.qualifier;
  for (size_t m = 0; m < sets.size(); ++m) {
    if (sets[m].side != side) continue;
    up->set.push_back(ast::Assignment{sets[m].column, capturedValue(j, side, m), {}});
  }
  up->where = existsIn(sideRowMatch(j, side, s.qualifier));
  up->context = cloneContext(user.context);
  return up;
}

// A non-preserved (null-extended) side's SET on a row with no partner creates the partner:
// its join columns take the preserved side's values, its SET columns the assigned values.
struct Materialization {
  int side = -1;
  std::vector<std::string> columns;
  std::vector<size_t> values;  // capture value positions, parallel to columns
  std::vector<size_t> joinValues;  // the positions holding the preserved side's join columns
};

// `created`: the non-preserved sides written (SET columns, or an existence flag set true).
std::vector<Materialization> materializations(const JoinBody& j, const std::vector<SideSet>& sets,
                                              const std::vector<int>& created, std::vector<ExprPtr>& values) {
  std::vector<Materialization> out;
  for (int side : created) {
    if (j.sides[side].preserved) continue;
    Materialization m;
    m.side = side;
    for (size_t i = 0; i < sets.size(); ++i) {
      if (sets[i].side != side) continue;
      m.columns.push_back(sets[i].column);
      m.values.push_back(i);
    }
    for (const auto& [a, b] : j.equalities) {
      for (const auto& [mine, other] : {std::make_pair(a, b), std::make_pair(b, a)}) {
        if (mine.side != side || other.side == side) continue;
        if (std::any_of(m.columns.begin(), m.columns.end(), [&col = mine.column](const std::string& c) { return lowerName(c) == lowerName(col); })) continue;
        m.columns.push_back(mine.column);
        m.values.push_back(values.size());
        m.joinValues.push_back(values.size());
        values.push_back(makeColumn(j.sides[other.side].qualifier, other.column));
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::unique_ptr<ast::Insert> materializingInsert(const JoinBody& j, const Materialization& m, const ast::Update& user) {
  const JoinSide& s = j.sides[m.side];
  auto ins = std::make_unique<ast::Insert>();
  ins->table = s.table;
  ins->columns = m.columns;
  std::vector<ast::ResultColumn> cols;
  for (size_t v : m.values) cols.push_back(aliased(makeColumn(kCapture, valueName(v)), ""));
  // A row null-extended on a NULL join key joins no partner whatever exists: nothing to create.
  ExprPtr where = unmatchedRow(j, static_cast<size_t>(m.side));
  for (size_t v : m.joinValues) {
    where = conjoin(std::move(where), isNotNullExpr(makeColumn(kCapture, valueName(v))));
  }
  ins->source = captureSelect(std::move(where), std::move(cols), false);
  // Rows null-extended on one dangling key share the partner they create: it is inserted once.
  ins->source->distinct = true;
  ins->context = cloneContext(user.context);
  return ins;
}

// ---- DELETE ------------------------------------------------------------------------------------

// The side's base delete of the captured rows.
std::unique_ptr<ast::Delete> sideDelete(const JoinBody& j, int side, const std::vector<ast::ContextAssignment>& context) {
  const JoinSide& s = j.sides[side];
  auto d = std::make_unique<ast::Delete>();
  d->table = s.table;
  d->alias = s.qualifier;
  d->where = existsIn(sideRowMatch(j, static_cast<size_t>(side), s.qualifier));
  d->context = cloneContext(context);
  return d;
}

// True when every foreign key from `child` to `parent` is on child's primary key (a 1:1
// extension, as in a columnar split): deleting the view row then removes every side.
bool referencesByKey(const JoinBody& j, int child, int parent) {
  const TableSchema& c = j.sides[child].schema();
  const TableSchema& p = j.sides[parent].schema();
  for (const ForeignKey& fk : c.foreignKeys) {
    if (fk.parentSchema != p.schemaName || lowerName(fk.parentTable) != lowerName(p.name)) continue;
    std::vector<int> key;
    for (const KeyColumn& k : c.primaryKey) key.push_back(k.column);
    std::vector<int> cols = fk.columns;
    std::sort(key.begin(), key.end());
    std::sort(cols.begin(), cols.end());
    if (cols != key) return false;
  }
  return true;
}

// The ON DELETE action that deleting `parent`'s rows fires on `child` (its foreign key to parent).
FkAction inboundDeleteAction(const JoinBody& j, int child, int parent) {
  const TableSchema& p = j.sides[parent].schema();
  for (const ForeignKey& fk : j.sides[child].schema().foreignKeys) {
    if (fk.parentSchema == p.schemaName && lowerName(fk.parentTable) == lowerName(p.name)) return fk.onDelete;
  }
  return FkAction::kRestrict;
}

// True when the body's join equates `child`'s foreign-key columns with the parent columns they
// reference: each joined row then is a child row and the very parent row it references.
bool joinFollowsForeignKey(const JoinBody& j, int child, int parent) {
  const TableSchema& c = j.sides[child].schema();
  const TableSchema& p = j.sides[parent].schema();
  for (const ForeignKey& fk : c.foreignKeys) {
    if (fk.parentSchema != p.schemaName || lowerName(fk.parentTable) != lowerName(p.name)) continue;
    bool all = true;
    for (size_t i = 0; i < fk.columns.size() && all; ++i) {
      SideColumn from{child, c.columns[fk.columns[i]].name};
      std::string to = i < fk.parentColumns.size() ? fk.parentColumns[i]
                       : i < p.primaryKey.size()   ? p.columns[p.primaryKey[i].column].name
                                                   : std::string();
      SideColumn target{parent, to};
      all = std::any_of(j.equalities.begin(), j.equalities.end(), [&](const auto& e) {
        return (e.first == from && e.second == target) || (e.first == target && e.second == from);
      });
    }
    if (all) return true;
  }
  return false;
}

// Two sides that reference each other (views.md §2.5): deleting one first fires the other's ON
// DELETE action on it. SET NULL / SET DEFAULT clear the reference, so the side whose deletion
// fires one can go first; two CASCADEs work in body order (the cascade removes the partner row,
// the partner's own delete then finds it gone); a RESTRICT in the way of both orders leaves none.
std::optional<std::vector<int>> mutualDeleteOrder(const JoinBody& j, int a, int b) {
  auto clears = [](FkAction x) { return x == FkAction::kSetNull || x == FkAction::kSetDefault; };
  FkAction onA = inboundDeleteAction(j, b, a);  // fired on b's rows when a's go
  FkAction onB = inboundDeleteAction(j, a, b);
  if (clears(onA)) return std::vector<int>{a, b};
  if (clears(onB)) return std::vector<int>{b, a};
  if (onA == FkAction::kCascade && onB == FkAction::kCascade) return std::vector<int>{a, b};
  return std::nullopt;
}

std::vector<int> deleteSides(const JoinBody& j, const WriteTarget& t) {
  std::vector<int> candidates;
  for (size_t i = 0; i < j.sides.size(); ++i) if (j.sides[i].preserved) candidates.push_back(static_cast<int>(i));
  std::vector<int> children;  // FK-many sides: their rows are the view's rows
  for (int c : candidates) {
    bool child = std::any_of(candidates.begin(), candidates.end(),
                             [&](int p) { return p != c && referencesSide(j, c, p) && !referencesByKey(j, c, p); });
    if (child) children.push_back(c);
  }
  std::vector<int> chosen = children.empty() ? candidates : children;
  if (chosen.size() == 2 && referencesSide(j, chosen[0], chosen[1]) && referencesSide(j, chosen[1], chosen[0])) {
    const int a = chosen[0], b = chosen[1];
    if (auto order = mutualDeleteOrder(j, a, b)) return *order;
    // Only rows that really reference each other trip the RESTRICT: refuse when the join says so.
    if (joinFollowsForeignKey(j, a, b) || joinFollowsForeignKey(j, b, a)) {
      const std::string& na = j.sides[a].schema().name;
      const std::string& nb = j.sides[b].schema().name;
      failMutation(MutationDiagnostic{"mutual-fk-restrict-delete", t.name, "", "delete"},
                   "cannot write through view '" + t.name + "': '" + na + "' and '" + nb +
                       "' reference each other (mutual foreign key) and no delete order satisfies their ON DELETE "
                       "actions (deleting '" + na + "' is " + fkActionName(inboundDeleteAction(j, b, a)) +
                       " on '" + nb + "', deleting '" + nb + "' is " + fkActionName(inboundDeleteAction(j, a, b)) +
                       " on '" + na + "'); delete from the base tables instead");
    }
    return {a, b};  // the joined rows need not reference each other: the runtime checks decide
  }
  std::vector<int> order = parentFirst(j, chosen);
  std::reverse(order.begin(), order.end());
  return order;
}

// ---- INSERT ------------------------------------------------------------------------------------

// One side's part of a join insert: its columns and, per VALUES row, their values.
constexpr size_t kMinted = static_cast<size_t>(-1);  // sourceIndex of a key the anchor mints
constexpr size_t kPinned = static_cast<size_t>(-2);  // sourceIndex of a selection-predicate constant
constexpr size_t kCrossSide = static_cast<size_t>(-3);  // sourceIndex of a DEFAULT read from the view row

struct SideInsert {
  std::vector<std::string> columns;
  std::vector<size_t> sourceIndex;        // per column: the user's VALUES position, kMinted or kPinned
  std::vector<const ast::Expr*> pinned;   // per column: the kPinned constant, the kCrossSide DEFAULT
  size_t routed = 0;                      // the first `routed` columns are view columns the user supplied
  bool flaggedPresent = false;            // an existence flag supplied true: the side is inserted

  bool supplied() const { return routed > 0 || flaggedPresent; }

  void add(const std::string& column, size_t source, const ast::Expr* constant = nullptr) {
    columns.push_back(column);
    sourceIndex.push_back(source);
    pinned.push_back(constant);
  }
};

int findColumn(const SideInsert& s, const std::string& name) {
  for (size_t i = 0; i < s.columns.size(); ++i) if (lowerName(s.columns[i]) == lowerName(name)) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> implicitJoinColumns(const JoinBody& j) {
  std::vector<std::string> out;
  for (size_t i = 0; i < j.view.columns.size(); ++i) {
    if (j.view.columns[i].kind == ColumnClass::kPassthrough && j.columnSide[i] >= 0) out.push_back(j.view.columns[i].name);
  }
  return out;
}

std::vector<SideInsert> routeColumns(const JoinBody& j, const ViewRewrite& r, const std::vector<std::string>& names) {
  std::vector<SideInsert> sides(j.sides.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const BodyColumn& c = requireViewColumn(r, names[i]);
    size_t idx = static_cast<size_t>(&c - j.view.columns.data());
    if (j.columnFlagOf[idx] >= 0) continue;  // an existence flag routes the side: routeFlags
    if (c.kind == ColumnClass::kAuthored) {
      rejectInsert(r.target, "unsupported-multisource-insert", c.name,
                   "evaluating authored puts through a join view's insert envelope is deferred");
    }
    if (c.kind != ColumnClass::kPassthrough || j.columnSide[idx] < 0) readOnly(r, c);
    SideInsert& s = sides[j.columnSide[idx]];
    s.add(c.baseColumn, i);
    ++s.routed;
  }
  return sides;
}

// A supplied existence flag routes its side (views.md §2.5): `true` inserts the partner even
// when none of its columns is supplied, `false` leaves it out. The flag is a boolean literal,
// the same on every VALUES row.
void routeFlags(const JoinBody& j, const ViewRewrite& r, const ast::Insert& ins, const std::vector<std::string>& names,
                std::vector<SideInsert>& sides) {
  for (size_t i = 0; i < names.size(); ++i) {
    const BodyColumn& c = requireViewColumn(r, names[i]);
    int side = j.columnFlagOf[static_cast<size_t>(&c - j.view.columns.data())];
    if (side < 0) continue;
    if (!ins.source || ins.source->values.empty()) {
      rejectInsert(r.target, "unsupported-source", c.name, "an insert supplying existence flag '" + c.name + "' requires a VALUES source");
    }
    auto cell = [i](const std::vector<ExprPtr>& row) { return i < row.size() ? row[i].get() : nullptr; };
    bool exists = flagLiteral(r, c.name, cell(ins.source->values[0]));
    for (const std::vector<ExprPtr>& row : ins.source->values) {
      if (flagLiteral(r, c.name, cell(row)) != exists) {
        rejectInsert(r.target, "unsupported-multisource-insert", c.name, "existence flag '" + c.name + "' must take the same value on every row");
      }
    }
    if (!exists && sides[side].routed > 0) {
      rejectInsert(r.target, "conflicting-assignment", c.name,
                   "'" + c.name + "' is false but columns of '" + j.sides[side].qualifier + "' were supplied");
    }
    sides[side].flaggedPresent = exists;
  }
}

// A view column per equated pair at most: the shared key is supplied once.
void rejectDoubleExposure(const JoinBody& j, const WriteTarget& t, const std::vector<SideInsert>& sides) {
  for (const auto& [a, b] : j.equalities) {
    if (findColumn(sides[a.side], a.column) >= 0 && findColumn(sides[b.side], b.column) >= 0) {
      rejectInsert(t, "unsupported-multisource-insert", a.column,
                   "the shared join key is exposed by more than one view column; supply it once");
    }
  }
}

// A supplied (or minted) join key flows to the columns the join equates it with, until
// nothing changes.
void threadKeys(const JoinBody& j, std::vector<SideInsert>& sides) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [a, b] : j.equalities) {
      for (const auto& [from, to] : {std::make_pair(a, b), std::make_pair(b, a)}) {
        int i = findColumn(sides[from.side], from.column);
        if (i < 0 || findColumn(sides[to.side], to.column) >= 0) continue;
        sides[to.side].add(to.column, sides[from.side].sourceIndex[i], sides[from.side].pinned[i]);
        changed = true;
      }
    }
  }
}

// The join columns equated with `start` (itself included), following the equalities.
std::vector<SideColumn> keyClass(const JoinBody& j, const SideColumn& start) {
  std::vector<SideColumn> out{start};
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [a, b] : j.equalities) {
      for (const auto& [from, to] : {std::make_pair(a, b), std::make_pair(b, a)}) {
        bool hasFrom = std::find(out.begin(), out.end(), from) != out.end();
        if (hasFrom && std::find(out.begin(), out.end(), to) == out.end()) {
          out.push_back(to);
          changed = true;
        }
      }
    }
  }
  return out;
}

// When no view column supplies the shared join key, the anchor — the first side (FK-parent
// first) whose key column declares a DEFAULT — mints it: its insert evaluates the default once
// per row and the minted values are threaded to every other inserted side (views.md §2.5).
// Returns the anchor side, or -1 when nothing is minted.
int mintSharedKey(const JoinBody& j, const std::vector<int>& inserted, std::vector<SideInsert>& sides) {
  for (int side : parentFirst(j, inserted)) {
    for (const ColumnSchema& c : j.sides[side].schema().columns) {
      if (!c.defaultExpr || c.generated || findColumn(sides[side], c.name) >= 0) continue;
      std::vector<SideColumn> members = keyClass(j, SideColumn{side, c.name});
      auto suppliedOrIdle = [&](const SideColumn& m) {
        return findColumn(sides[m.side], m.column) >= 0 ||
               std::find(inserted.begin(), inserted.end(), m.side) == inserted.end();
      };
      if (members.size() < 2 || std::any_of(members.begin(), members.end(), [&](const SideColumn& m) {
            return findColumn(sides[m.side], m.column) >= 0;
          })) {
        continue;
      }
      if (std::all_of(members.begin() + 1, members.end(), suppliedOrIdle)) continue;
      sides[side].add(c.name, kMinted);
      return side;
    }
  }
  return -1;
}

bool contains(const std::vector<int>& sides, int side) { return std::find(sides.begin(), sides.end(), side) != sides.end(); }

// A side whose one join column references two inserted sides would need both parents' keys in
// that column; a join insert threads a single shared key per column (views.md §2.5).
void requireSingleSharedKey(const JoinBody& j, const WriteTarget& t, const std::vector<int>& inserted) {
  for (const auto& [a, b] : j.equalities) {
    for (const SideColumn& own : {a, b}) {
      if (!contains(inserted, own.side)) continue;
      std::set<int> parents;
      for (const SideColumn& m : keyClass(j, own)) {
        if (m.side != own.side && contains(inserted, m.side) && referencesSide(j, own.side, m.side)) parents.insert(m.side);
      }
      if (parents.size() < 2) continue;
      const std::string& child = j.sides[own.side].qualifier;
      rejectInsert(t, "unsupported-multisource-insert", own.column,
                   "'" + child + "." + own.column + "' references " + std::to_string(parents.size()) +
                       " inserted sides; an insert through a join view supports a single shared key per column");
    }
  }
}

// The body's selection-predicate constants on the inserted sides (views.md §2.3): an omitted
// pinned column takes its constant; a supplied VALUES literal must not contradict it.
void applyPins(const JoinBody& j, const WriteTarget& t, const std::vector<int>& inserted, std::vector<SideInsert>& sides,
               const ast::Select& source) {
  for (const SidePin& pin : j.pins) {
    if (!pin.filters || !contains(inserted, pin.column.side)) continue;
    SideInsert& s = sides[pin.column.side];
    int c = findColumn(s, pin.column.column);
    if (c < 0) {
      s.add(pin.column.column, kPinned, pin.value);
      continue;
    }
    size_t i = s.sourceIndex[c];
    if (i == kPinned || i == kMinted) continue;
    for (const auto& row : source.values) {
      if (i < row.size()) rejectContradiction(t, pin.column.column, *row[i], *pin.value);
    }
  }
}

int userIndex(const std::vector<std::string>& userColumns, const std::string& name) {
  for (size_t i = 0; i < userColumns.size(); ++i) if (lowerName(userColumns[i]) == lowerName(name)) return static_cast<int>(i);
  return -1;
}

// A DEFAULT reading `new.x` where x is no column of its side but a view column the user
// supplies: the side's own insert cannot see x, so the lowering evaluates that DEFAULT with the
// produced view row as its NEW (views.md §2.5 multi-source NEW context).
bool readsCrossSide(const JoinSide& side, const ast::Expr& e, const std::vector<std::string>& userColumns) {
  return ast::anyExpr(e, [&](const ast::Expr& x) {
    return x.kind == ExprKind::kColumn && lowerName(x.table) == "new" && side.schema().findColumn(x.name) < 0 &&
           userIndex(userColumns, x.name) >= 0;
  }, true);
}

void addCrossSideDefaults(const JoinSide& side, SideInsert& s, const std::vector<std::string>& userColumns) {
  for (const ColumnSchema& c : side.schema().columns) {
    if (!c.defaultExpr || c.generated || findColumn(s, c.name) >= 0) continue;
    if (readsCrossSide(side, *c.defaultExpr, userColumns)) s.add(c.name, kCrossSide, c.defaultExpr);
  }
}

// The DEFAULT of the anchor's minted key when it reads another side's column (`new.x` of a
// user-supplied view column): the anchor's own insert cannot see x, so the lowering evaluates it
// over the produced row and the anchor stores (and returns) that value. Null otherwise.
const ast::Expr* crossSideKeyDefault(const JoinSide& side, const std::string& column,
                                     const std::vector<std::string>& userColumns) {
  int c = side.schema().findColumn(column);
  const ast::Expr* d = c < 0 ? nullptr : side.schema().columns[c].defaultExpr;
  return d && readsCrossSide(side, *d, userColumns) ? d : nullptr;
}

using ValueOf = std::function<ExprPtr(size_t userIndex)>;

// Replaces every `new.x` (outside subqueries) by the row's value: the side's own column when it
// carries x, else the view column x the user supplied, else NULL.
void bindRowNew(ExprPtr& e, const SideInsert& s, const std::vector<std::string>& userColumns, const ValueOf& user) {
  if (!e) return;
  if (e->kind == ExprKind::kColumn && lowerName(e->table) == "new") {
    int own = findColumn(s, e->name);
    size_t i = own >= 0 ? s.sourceIndex[own] : kCrossSide;
    if (i == kPinned) e = ast::clone(*s.pinned[own]);
    else if (own >= 0 && i < kCrossSide) e = user(i);
    else if (own < 0 && userIndex(userColumns, e->name) >= 0) e = user(static_cast<size_t>(userIndex(userColumns, e->name)));
    else e = makeNull();
    return;
  }
  for (ExprPtr& a : e->args) bindRowNew(a, s, userColumns, user);
  for (ast::CaseWhen& w : e->whens) {
    bindRowNew(w.when, s, userColumns, user);
    bindRowNew(w.then, s, userColumns, user);
  }
  bindRowNew(e->elseExpr, s, userColumns, user);
  if (e->select) forEachExprIn(*e->select, [&](ExprPtr& x) { bindRowNew(x, s, userColumns, user); });
}

// The value of side column `c` for one row: a pinned constant, a cross-side DEFAULT over the row,
// or the user's value.
ExprPtr sideCell(const SideInsert& s, size_t c, const std::vector<std::string>& userColumns, const ValueOf& user) {
  size_t i = s.sourceIndex[c];
  if (i == kPinned) return ast::clone(*s.pinned[c]);
  if (i != kCrossSide) return user(i);
  ExprPtr e = ast::clone(*s.pinned[c]);
  bindRowNew(e, s, userColumns, user);
  return e;
}

bool isSharedKey(const JoinBody& j, int side, const std::string& column) {
  return std::any_of(j.equalities.begin(), j.equalities.end(), [&](const auto& e) {
    return (e.first.side == side && lowerName(e.first.column) == lowerName(column)) ||
           (e.second.side == side && lowerName(e.second.column) == lowerName(column));
  });
}

void requireFilled(const JoinBody& j, const WriteTarget& t, int side, const SideInsert& s) {
  const TableSchema& ts = j.sides[side].schema();
  for (const ColumnSchema& c : ts.columns) {
    if (c.generated || !c.notNull || c.defaultExpr || findColumn(s, c.name) >= 0) continue;
    if (isSharedKey(j, side, c.name)) {
      rejectInsert(t, "no-default", c.name,
                   "the shared join key '" + ts.name + "." + c.name + "' is neither supplied nor declares a default");
    }
    rejectUnsuppliedNotNull(t, ts.name, c.name);
  }
}

// `(select key from capture where ord = row)`: the key the anchor minted for VALUES row `row`.
ExprPtr mintedKey(size_t row) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::kSubquery;
  std::vector<ast::ResultColumn> cols;
  cols.push_back(aliased(makeColumn(kCapture, "key"), ""));
  e->select = captureSelect(makeBinary("=", makeColumn(kCapture, "ord"), literalExpr(Value::integer(static_cast<int64_t>(row)))),
                            std::move(cols), true);
  return e;
}

bool isNullLiteral(const ast::Expr& e) { return e.kind == ExprKind::kLiteral && e.value.isNull(); }

// The VALUES rows a side inserts. A null-extendable side is present only where the user gave it a
// value: a row supplying NULL for all its view columns reads back null-extended, so no partner
// row is created (and a minted key is not threaded to the other sides).
std::vector<size_t> presentRows(const JoinSide& side, const SideInsert& s, const ast::Select& source) {
  std::vector<size_t> out;
  for (size_t r = 0; r < source.values.size(); ++r) {
    const auto& row = source.values[r];
    bool present = side.preserved || s.flaggedPresent || std::any_of(s.sourceIndex.begin(), s.sourceIndex.begin() + s.routed, [&](size_t i) {
                     return i >= row.size() || !isNullLiteral(*row[i]);
                   });
    if (present) out.push_back(r);
  }
  return out;
}

// The side's base insert of VALUES rows `rows`. The anchor leaves its minted key to its DEFAULT
// and returns it; the other sides read it from the capture.
std::unique_ptr<ast::Insert> sideInsert(const JoinSide& side, const SideInsert& s, const ast::Insert& user,
                                        const std::vector<std::string>& userColumns, bool anchor,
                                        const std::vector<size_t>& rows) {
  auto ins = std::make_unique<ast::Insert>();
  ins->orAction = user.orAction;
  ins->table = side.table;
  for (size_t c = 0; c < s.columns.size(); ++c) {
    if (s.sourceIndex[c] != kMinted) {
      ins->columns.push_back(s.columns[c]);
    } else if (anchor) {
      if (crossSideKeyDefault(side, s.columns[c], userColumns)) ins->columns.push_back(s.columns[c]);
      ins->returning.push_back(aliased(makeColumn("", s.columns[c]), "key"));
      ins->hasReturning = true;
    } else {
      ins->columns.push_back(s.columns[c]);
    }
  }
  ins->source = std::make_unique<ast::Select>();
  for (size_t r : rows) {
    std::vector<ExprPtr> values;
    ValueOf cell = [&, r](size_t i) { return ast::clone(*user.source->values[r].at(i)); };
    for (size_t c = 0; c < s.columns.size(); ++c) {
      if (s.sourceIndex[c] != kMinted) {
        values.push_back(sideCell(s, c, userColumns, cell));
      } else if (!anchor) {
        values.push_back(mintedKey(r));
      } else if (const ast::Expr* d = crossSideKeyDefault(side, s.columns[c], userColumns)) {
        ExprPtr v = ast::clone(*d);
        bindRowNew(v, s, userColumns, cell);
        values.push_back(std::move(v));
      }
    }
    ins->source->values.push_back(std::move(values));
  }
  ins->context = cloneContext(user.context);
  return ins;
}

// The side's base insert when the user's source is a query: it reads its columns from the
// capture, which ran the query once (`v<i>` is the user's i-th column).
std::unique_ptr<ast::Insert> sideInsertFromCapture(const JoinSide& side, const SideInsert& s, const ast::Insert& user,
                                                   const std::vector<std::string>& userColumns) {
  auto ins = std::make_unique<ast::Insert>();
  ins->orAction = user.orAction;
  ins->table = side.table;
  ins->columns = s.columns;
  std::vector<ast::ResultColumn> cols;
  ValueOf captured = [](size_t i) { return makeColumn(kCapture, valueName(i)); };
  for (size_t c = 0; c < s.columns.size(); ++c) cols.push_back(aliased(sideCell(s, c, userColumns, captured), ""));
  // A null-extendable side is present where the user gave it a value (presentRows).
  ExprPtr present;
  for (size_t c = 0; c < s.routed && !side.preserved && !s.flaggedPresent; ++c) {
    ExprPtr given = isNotNullExpr(makeColumn(kCapture, valueName(s.sourceIndex[c])));
    present = present ? makeBinary("or", std::move(present), std::move(given)) : std::move(given);
  }
  ins->source = captureSelect(std::move(present), std::move(cols), false);
  ins->context = cloneContext(user.context);
  return ins;
}

// INSERT … SELECT through a join view: the source runs once into the capture, then each side
// inserts its columns from it, parents first.
std::unique_ptr<DmlPlan> bindJoinInsertFromQuery(Binder& binder, const ast::Insert& ins, const WriteTarget& t,
                                                 const JoinBody& j, const std::vector<SideInsert>& sides,
                                                 const std::vector<int>& order, const std::vector<std::string>& userColumns) {
  std::vector<std::string> names;
  for (size_t i = 0; i < userColumns.size(); ++i) names.push_back(valueName(i));
  auto plan = std::make_unique<JoinWritePlan>();
  JoinBinding bind(binder, *plan, ins.with.get(), t, ast::clone(*ins.source), names);
  for (int side : order) bind.addInsert(sideInsertFromCapture(j.sides[side], sides[side], ins, userColumns));
  return plan;
}

}  // namespace

std::unique_ptr<DmlPlan> bindJoinInsert(Binder& binder, const ast::Insert& ins, const WriteTarget& t) {
  JoinBody j = analyseJoin(binder, t, "insert");
  ViewRewrite r{binder, t, j.view, "insert"};
  if (ins.hasReturning) {
    rejectInsert(t, "returning-through-view", "",
                 "RETURNING through a multi-source (join) insert into view '" + t.name + "' is not yet supported");
  }
  bool values = ins.source && ins.source->setOp == ast::SetOp::kNone && !ins.source->values.empty();
  if (!ins.source || ins.sourceDml) {
    rejectInsert(t, "unsupported-source", "", "an insert through a join view requires a VALUES or SELECT source");
  }
  std::vector<std::string> userColumns = ins.columns.empty() ? implicitJoinColumns(j) : ins.columns;
  std::vector<SideInsert> sides = routeColumns(j, r, userColumns);
  routeFlags(j, r, ins, userColumns, sides);
  bool preservedSupplied = false;
  for (size_t i = 0; i < sides.size(); ++i) preservedSupplied |= sides[i].supplied() && j.sides[i].preserved;
  if (!preservedSupplied) {
    rejectInsert(t, "null-extended-create-conflict", "",
                 "only non-preserved-side columns were supplied; an outer-join insert needs its preserved side");
  }
  rejectDoubleExposure(j, t, sides);
  threadKeys(j, sides);
  std::vector<int> inserted;
  for (size_t i = 0; i < sides.size(); ++i) {
    if (j.sides[i].preserved || sides[i].supplied()) inserted.push_back(static_cast<int>(i));
  }
  requireSingleSharedKey(j, t, inserted);
  applyPins(j, t, inserted, sides, *ins.source);
  threadKeys(j, sides);
  int anchor = mintSharedKey(j, inserted, sides);
  threadKeys(j, sides);
  for (int side : inserted) {
    addCrossSideDefaults(j.sides[side], sides[side], userColumns);
    requireFilled(j, t, side, sides[side]);
  }
  std::vector<int> order = parentFirst(j, inserted);
  if (!values) {
    if (anchor >= 0) {
      rejectInsert(t, "unsupported-source", "",
                   "an insert through a join view that mints the shared key requires a VALUES source");
    }
    return bindJoinInsertFromQuery(binder, ins, t, j, sides, order, userColumns);
  }
  if (anchor >= 0) {
    order.erase(std::find(order.begin(), order.end(), anchor));
    order.insert(order.begin(), anchor);
  }
  auto plan = std::make_unique<JoinWritePlan>();
  plan->with = loweredWith(ins.with.get(), t);
  binder.pushWith(plan->with.get());
  struct Pop {
    Binder& b;
    ~Pop() { b.popWith(); }
  } pop{binder};
  if (anchor >= 0) {
    binder.pushRowSource(kCapture, plan->captured,
                         {OutputColumn{"ord", LogicalType::kInteger}, OutputColumn{"key", LogicalType::kAny}});
  }
  for (int side : order) {
    std::vector<size_t> rows = presentRows(j.sides[side], sides[side], *ins.source);
    if (rows.empty()) continue;  // an absent partner: nothing to insert, no key minted
    if (side == anchor) {
      plan->anchorFirst = true;
      plan->mintOrdinals = rows;
    }
    auto stmt = std::make_unique<ast::Statement>();
    stmt->kind = ast::StatementKind::kInsert;
    stmt->insert = sideInsert(j.sides[side], sides[side], ins, userColumns, side == anchor, rows);
    plan->sides.push_back(
        bindInsert(binder, *stmt->insert, side == anchor ? DefaultTiming::kBeforeAnyWrite : DefaultTiming::kPerRow));
    plan->statements.push_back(std::move(stmt));
  }
  if (anchor >= 0) binder.popWith();
  return plan;
}

std::unique_ptr<DmlPlan> bindJoinUpdate(Binder& binder, const ast::Update& up, const WriteTarget& t) {
  JoinBody j = analyseJoin(binder, t, "update");
  ViewRewrite r{binder, t, j.view, "update"};
  std::vector<SideSet> sets = lowerJoinAssignments(j, r, up.set);
  std::vector<FlagSet> flags = flagAssignments(j, r, up.set, sets);
  std::vector<int> written = sidesOf(sets);
  for (const FlagSet& f : flags) {
    if (f.exists && std::find(written.begin(), written.end(), f.side) == written.end()) written.push_back(f.side);
  }
  std::vector<ExprPtr> values;
  for (SideSet& s : sets) values.push_back(std::move(s.value));
  std::vector<Materialization> creates = materializations(j, sets, written, values);
  auto plan = std::make_unique<JoinWritePlan>();
  JoinBinding bind(binder, *plan, up.with.get(), t,
                   captureQuery(j, t, up.where ? toBase(*up.where, r) : nullptr, std::move(values)));
  for (int side : parentFirst(j, written)) {
    if (std::any_of(sets.begin(), sets.end(), [side](const SideSet& s) { return s.side == side; })) {
      bind.addUpdate(sideUpdate(j, side, sets, up));
    }
    for (const Materialization& m : creates) {
      if (m.side == side) bind.addInsert(materializingInsert(j, m, up));
    }
  }
  // `hasB = false`: the matched partners go (their captured keys and match flag address them).
  for (const FlagSet& f : flags) {
    if (!f.exists) bind.addDelete(sideDelete(j, f.side, up.context));
  }
  if (up.hasReturning) plan->setReturning(bind.bindQuery(returningQuery(j, t, r, up.returning)), false);
  return plan;
}

std::unique_ptr<DmlPlan> bindJoinDelete(Binder& binder, const ast::Delete& del, const WriteTarget& t) {
  JoinBody j = analyseJoin(binder, t, "delete");
  ViewRewrite r{binder, t, j.view, "delete"};
  auto plan = std::make_unique<JoinWritePlan>();
  JoinBinding bind(binder, *plan, del.with.get(), t, captureQuery(j, t, del.where ? toBase(*del.where, r) : nullptr, {}));
  for (int side : deleteSides(j, t)) bind.addDelete(sideDelete(j, side, del.context));
  if (del.hasReturning) plan->setReturning(bind.bindQuery(returningQuery(j, t, r, del.returning)), true);
  return plan;
}

}  // namespace optic
