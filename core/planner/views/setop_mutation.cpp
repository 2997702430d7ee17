// Writes through set-operation bodies with membership flags (setop_mutation.h).
#include "core/planner/views/setop_mutation.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/execution/operator.h"
#include "core/parser/ast_clone.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/dml_binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/planner/views/view_body.h"
#include "core/planner/views/view_lowering.h"

namespace optic {
namespace {

using ast::ExprPtr;
using namespace lowering;

constexpr const char* kCapture = "__setop_capture";

// Capture column names: old data value, membership flag, new data value. The prefix keeps them
// apart from the view's own column names, which the legs' writes read bare.
std::string dataName(size_t i) { return "__d" + std::to_string(i); }
std::string flagName(size_t leg) { return "__f" + std::to_string(leg); }
std::string newName(size_t i) { return "__n" + std::to_string(i); }

[[noreturn]] void reject(const WriteTarget& t, const char* op, const std::string& reason, const std::string& what) {
  failMutation(MutationDiagnostic{reason, t.name, "", op}, cannotWrite(t) + what);
}

struct Leg {
  const ast::Select* body = nullptr;
  std::string flag;                       // the leg's membership flag (synthetic when flag-less)
  std::vector<const ast::Expr*> literals;  // per data column: its literal (a discriminator), else null
  std::unique_ptr<ast::Select> resolved;   // the body, its tables named from the view's home schema
};

// How the body's rows map to its legs (views.md §2.6).
enum class SetOpRule : uint8_t {
  kMembership,     // flags name each row's legs
  kDiscriminated,  // `union all` of legs told apart by literal columns
  kIntersect,      // every row is in both legs
  kExcept,         // every row is in the left leg and not in the right
};

// The view as the write sees it: data columns, then the flags; per leg its body and flag.
struct MembershipBody {
  SetOpRule rule = SetOpRule::kMembership;
  std::vector<std::string> data;
  Leg legs[2];
  SingleSource view;  // every view column by name (for the encapsulation guard's messages)
};

[[noreturn]] void rejectShape(const WriteTarget& t, const char* op) {
  reject(t, op, "unsupported-set-op", "view body operator 'SetOperation' is not updateable in phase 1");
}

SetOpRule ruleOf(const WriteTarget& t, const char* op, bool flagged) {
  const ast::Select& b = *t.body;
  if (b.setOp == ast::SetOp::kDiff) {
    if (flagged) reject(t, op, "unsupported-set-op", "membership flags of a `diff` body are not writable");
    rejectShape(t, op);
  }
  if (flagged) {
    if (b.existsLeftAs.empty() || b.existsRightAs.empty()) {
      reject(t, op, "unsupported-set-op", "a set-operation body is writable through a membership flag on each side");
    }
    return SetOpRule::kMembership;
  }
  switch (b.setOp) {
    case ast::SetOp::kUnionAll: return SetOpRule::kDiscriminated;
    case ast::SetOp::kIntersect: return SetOpRule::kIntersect;
    case ast::SetOp::kExcept: return SetOpRule::kExcept;
    default: rejectShape(t, op);
  }
}

// True when some column holds a different literal in each leg.
bool discriminated(const MembershipBody& m) {
  for (size_t i = 0; i < m.data.size(); ++i) {
    const ast::Expr* l = m.legs[0].literals[i];
    const ast::Expr* r = m.legs[1].literals[i];
    if (l && r && printExpr(*l) != printExpr(*r)) return true;
  }
  return false;
}

// A stored view's leg names its tables from the view's home schema, wherever the writer is.
void resolveFromHome(Binder& binder, const WriteTarget& t, ast::FromItem& f) {
  if (f.kind == ast::FromItem::Kind::kTable) f.table = sourceName(binder, t, f);
  if (f.left) resolveFromHome(binder, t, *f.left);
  if (f.right) resolveFromHome(binder, t, *f.right);
}

Leg analyseLeg(Binder& binder, const WriteTarget& t, const char* op, const ast::Select& body, std::string flag) {
  Leg leg{&body, std::move(flag), {}, ast::clone(body)};
  if (leg.resolved->from) resolveFromHome(binder, t, *leg.resolved->from);
  for (const ast::ResultColumn& rc : body.columns) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) {
      reject(t, op, "unsupported-set-op", "a `select *` leg is not writable; list the leg's output columns explicitly");
    }
    leg.literals.push_back(rc.expr->kind == ast::ExprKind::kLiteral ? rc.expr.get() : nullptr);
  }
  return leg;
}

MembershipBody analyseSetOp(Binder& binder, const WriteTarget& t, const char* op) {
  const ast::Select& b = *t.body;
  if (t.recursive) reject(t, op, "recursive-cte", "a recursive CTE has no recoverable base operation");
  bool flagged = isMembershipBody(b);
  MembershipBody m;
  m.rule = ruleOf(t, op, flagged);
  if (b.left->setOp != ast::SetOp::kNone || b.right->setOp != ast::SetOp::kNone) {
    reject(t, op, "unsupported-set-op", "a nested set operation in a set-operation body is not yet writable");
  }
  if (!b.orderBy.empty() || b.limit || b.offset) {
    reject(t, op, "unsupported-limit", "a LIMIT/OFFSET body is not decomposable in phase 1 (a write could escape the row window)");
  }
  m.legs[0] = analyseLeg(binder, t, op, *b.left, flagged ? b.existsLeftAs : "__in0");
  m.legs[1] = analyseLeg(binder, t, op, *b.right, flagged ? b.existsRightAs : "__in1");
  for (const ast::ResultColumn& rc : b.left->columns) m.data.push_back(resultColumnName(rc));
  if (m.rule == SetOpRule::kDiscriminated && !discriminated(m)) rejectShape(t, op);
  size_t flags = flagged ? 2 : 0;
  if (!t.columnNames.empty()) {
    if (t.columnNames.size() != m.data.size() + flags) {
      fail("View '" + t.name + "' has " + std::to_string(t.columnNames.size()) + " declared columns but body produces " +
           std::to_string(m.data.size() + flags));
    }
    for (size_t i = 0; i < m.data.size(); ++i) m.data[i] = t.columnNames[i];
    for (size_t l = 0; l < flags; ++l) m.legs[l].flag = t.columnNames[m.data.size() + l];
  }
  for (const std::string& n : m.data) m.view.columns.push_back(BodyColumn{n});
  for (size_t l = 0; l < flags; ++l) m.view.columns.push_back(BodyColumn{m.legs[l].flag});
  return m;
}

int dataIndex(const MembershipBody& m, const std::string& name) {
  for (size_t i = 0; i < m.data.size(); ++i) if (lowerName(m.data[i]) == lowerName(name)) return static_cast<int>(i);
  return -1;
}

int legOfFlag(const MembershipBody& m, const std::string& name) {
  for (int l = 0; l < 2; ++l) if (lowerName(m.legs[l].flag) == lowerName(name)) return l;
  return -1;
}

// `select <data> as __d…, <flags> as __f…, <new data> as __n… from (<body>) as v(<columns>)
// where <user where>`: the affected view rows, read before any write.
std::unique_ptr<ast::Select> captureQuery(const MembershipBody& m, const WriteTarget& t, const ast::Expr* where,
                                          std::vector<ExprPtr> newValues) {
  auto sel = std::make_unique<ast::Select>();
  for (size_t i = 0; i < m.data.size(); ++i) sel->columns.push_back(aliased(makeColumn("", m.data[i]), dataName(i)));
  for (size_t l = 0; l < 2; ++l) sel->columns.push_back(aliased(makeColumn("", m.legs[l].flag), flagName(l)));
  for (size_t i = 0; i < newValues.size(); ++i) sel->columns.push_back(aliased(std::move(newValues[i]), newName(i)));
  auto from = std::make_unique<ast::FromItem>();
  from->kind = ast::FromItem::Kind::kSubquery;
  from->select = ast::clone(*t.body);
  from->select->left = ast::clone(*m.legs[0].resolved);
  from->select->right = ast::clone(*m.legs[1].resolved);
  // A flag-less body reads with synthetic flags: the capture still knows each row's legs.
  from->select->existsLeftAs = m.legs[0].flag;
  from->select->existsRightAs = m.legs[1].flag;
  from->alias = t.qualifier();
  from->columnAliases = m.data;
  for (const Leg& l : m.legs) from->columnAliases.push_back(l.flag);
  sel->from = std::move(from);
  sel->where = ast::cloneOrNull(where);
  return sel;
}

// `capture.__d<i> = <view column> (NULL-safe) and …` over `columns` (all data columns when
// empty): the captured row matched by its data — its old values, or `byNew` its new ones.
ExprPtr dataMatch(const MembershipBody& m, bool byNew = false, std::vector<size_t> columns = {}) {
  if (columns.empty()) for (size_t i = 0; i < m.data.size(); ++i) columns.push_back(i);
  ExprPtr out;
  for (size_t i : columns) {
    std::string c = byNew ? newName(i) : dataName(i);
    ExprPtr eq = makeBinary("=", makeColumn(kCapture, c), makeColumn("", m.data[i]));
    ExprPtr bothNull = makeBinary("and", isNullExpr(makeColumn(kCapture, c)), isNullExpr(makeColumn("", m.data[i])));
    out = conjoin(std::move(out), makeBinary("or", std::move(eq), std::move(bothNull)));
  }
  return out;
}

std::unique_ptr<ast::Select> fromCapture(ExprPtr where, std::vector<ast::ResultColumn> columns) {
  return selectFrom(kCapture, std::move(where), std::move(columns));
}

ExprPtr existsSelect(std::unique_ptr<ast::Select> sel) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kExists;
  e->select = std::move(sel);
  return e;
}

std::vector<ast::ResultColumn> selectOne() {
  std::vector<ast::ResultColumn> one;
  one.push_back(aliased(literalExpr(Value::integer(1)), ""));
  return one;
}

// The captured rows that are members of `leg`, matched to the leg row by data.
ExprPtr capturedMember(const MembershipBody& m, size_t leg) {
  return existsSelect(fromCapture(makeBinary("and", makeColumn(kCapture, flagName(leg)), dataMatch(m)), selectOne()));
}

// The new value of data column `i` for the leg row matched by data.
ExprPtr capturedNewValue(const MembershipBody& m, size_t leg, size_t i) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kSubquery;
  std::vector<ast::ResultColumn> col;
  col.push_back(aliased(makeColumn(kCapture, newName(i)), ""));
  e->select = fromCapture(makeBinary("and", makeColumn(kCapture, flagName(leg)), dataMatch(m)), std::move(col));
  e->select->limit = literalExpr(Value::integer(1));
  return e;
}

// `with <view>(<data>) as (<leg>)`: the leg as a write target of its own, under the view's name
// and data column names, so the leg's single-source or join machinery writes it.
std::unique_ptr<ast::WithClause> legWith(const MembershipBody& m, const WriteTarget& t, size_t leg) {
  auto w = std::make_unique<ast::WithClause>();
  ast::CommonTableExpr cte;
  cte.name = t.name;
  cte.columns = m.data;
  cte.select = ast::clone(*m.legs[leg].resolved);
  w->ctes.push_back(std::move(cte));
  return w;
}

ast::QualifiedName legName(const WriteTarget& t) {
  ast::QualifiedName n;
  n.name = t.name;
  return n;
}

// ---- the plan ----------------------------------------------------------------------------------

class SetOpWritePlan final : public DmlPlan {
 public:
  std::unique_ptr<ast::Select> query;  // the capture's AST
  std::unique_ptr<ast::WithClause> with;
  std::vector<std::unique_ptr<ast::Statement>> statements;
  std::shared_ptr<std::vector<Row>> captured = std::make_shared<std::vector<Row>>();
  OperatorPtr capture;
  std::vector<std::unique_ptr<DmlPlan>> legs;

  std::vector<Row> execute(ExecState& st) override {
    if (capture) *captured = drain(*capture, st, nullptr);
    changes_ = 0;
    for (auto& leg : legs) {
      leg->execute(st);
      changes_ = std::max(changes_, leg->changes());
    }
    // UPDATE and DELETE capture the view rows they address: a row in both legs is one view row.
    if (capture) changes_ = captured->size();
    return {};
  }

  void add(std::unique_ptr<ast::Statement> stmt, Binder& binder) {
    switch (stmt->kind) {
      case ast::StatementKind::kInsert: legs.push_back(bindInsert(binder, *stmt->insert)); break;
      case ast::StatementKind::kUpdate: legs.push_back(bindUpdate(binder, *stmt->update)); break;
      default: legs.push_back(bindDelete(binder, *stmt->del)); break;
    }
    statements.push_back(std::move(stmt));
  }
};

// Binds the capture with the statement's WITH in scope and keeps the capture relation visible
// to the legs' statements until destroyed.
class CaptureScope {
 public:
  CaptureScope(Binder& binder, SetOpWritePlan& plan, const ast::WithClause* with, const WriteTarget& t,
               std::unique_ptr<ast::Select> query)
      : binder_(binder) {
    plan.with = loweredWith(with, t);
    binder.pushWith(plan.with.get());
    QueryPlan q;
    try {
      q = binder.bindQuery(*query, nullptr);
    } catch (...) {
      binder.popWith();
      throw;
    }
    plan.query = std::move(query);
    plan.capture = std::move(q.root);
    binder.pushRowSource(kCapture, plan.captured, q.columns);
  }
  ~CaptureScope() {
    binder_.popWith();
    binder_.popWith();
  }
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;

 private:
  Binder& binder_;
};

void rejectReturning(const WriteTarget& t, const char* op, bool hasReturning) {
  if (hasReturning) {
    failMutation(MutationDiagnostic{"returning-through-view", t.name, "", op},
                 cannotWrite(t) + "RETURNING through a set-operation body is not yet supported");
  }
}

// `where` addresses the leg's rows by their view column names.
std::unique_ptr<ast::Statement> legDelete(const MembershipBody& m, const WriteTarget& t, size_t leg, ExprPtr where,
                                          const std::vector<ast::ContextAssignment>& context) {
  auto del = std::make_unique<ast::Delete>();
  del->with = legWith(m, t, leg);
  del->table = legName(t);
  del->where = std::move(where);
  del->context = cloneContext(context);
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kDelete;
  stmt->del = std::move(del);
  return stmt;
}

// ---- UPDATE ------------------------------------------------------------------------------------

struct Assigned {
  std::vector<bool> data;        // per data column: assigned
  int flag[2] = {-1, -1};        // per leg: -1 untouched, 0 false, 1 true
};

Assigned readAssignments(const MembershipBody& m, const ViewRewrite& r, const std::vector<ast::Assignment>& set,
                         std::vector<ExprPtr>& newValues) {
  Assigned a;
  a.data.assign(m.data.size(), false);
  for (size_t i = 0; i < m.data.size(); ++i) newValues.push_back(makeColumn("", m.data[i]));
  for (const ast::Assignment& s : set) {
    const BodyColumn& c = requireViewColumn(r, s.column);
    int leg = legOfFlag(m, c.name);
    if (leg >= 0) {
      a.flag[leg] = flagLiteral(r, c.name, s.value.get()) ? 1 : 0;
      continue;
    }
    size_t i = static_cast<size_t>(dataIndex(m, c.name));
    a.data[i] = true;
    newValues[i] = ast::clone(*s.value);
  }
  return a;
}

std::unique_ptr<ast::Statement> legDataUpdate(const MembershipBody& m, const WriteTarget& t, size_t leg,
                                              const Assigned& a, const ast::Update& user) {
  auto up = std::make_unique<ast::Update>();
  up->with = legWith(m, t, leg);
  up->table = legName(t);
  for (size_t i = 0; i < m.data.size(); ++i) {
    if (a.data[i]) up->set.push_back(ast::Assignment{m.data[i], capturedNewValue(m, leg, i), {}});
  }
  up->where = capturedMember(m, leg);
  up->context = cloneContext(user.context);
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kUpdate;
  stmt->update = std::move(up);
  return stmt;
}

// `set in<leg> = true`: the captured rows not yet in the leg go in, with their new data values.
std::unique_ptr<ast::Statement> legFlipInsert(const MembershipBody& m, const WriteTarget& t, size_t leg,
                                              const ast::Update& user) {
  auto ins = std::make_unique<ast::Insert>();
  ins->with = legWith(m, t, leg);
  ins->table = legName(t);
  ins->columns = m.data;
  std::vector<ast::ResultColumn> cols;
  for (size_t i = 0; i < m.data.size(); ++i) cols.push_back(aliased(makeColumn(kCapture, newName(i)), m.data[i]));
  ins->source = fromCapture(isNotTrue(makeColumn(kCapture, flagName(leg))), std::move(cols));
  ins->context = cloneContext(user.context);
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kInsert;
  stmt->insert = std::move(ins);
  return stmt;
}

// ---- INSERT ------------------------------------------------------------------------------------

// The user's VALUES rows, the column names they supply, and per leg the rows it takes.
struct InsertRows {
  const ast::Insert& ins;
  std::vector<std::string> names;
  std::vector<size_t> legRows[2];

  const ast::Expr* cell(size_t row, size_t i) const {
    const std::vector<ExprPtr>& r = ins.source->values[row];
    return i < r.size() ? r[i].get() : nullptr;
  }
  int position(const std::string& name) const {
    for (size_t i = 0; i < names.size(); ++i) if (lowerName(names[i]) == lowerName(name)) return static_cast<int>(i);
    return -1;
  }
};

// Membership: each flag is required, a boolean literal, the same on every row.
void routeByFlags(const MembershipBody& m, const ViewRewrite& r, InsertRows& rows) {
  for (size_t l = 0; l < 2; ++l) {
    int at = rows.position(m.legs[l].flag);
    if (at < 0) {
      rejectInsert(r.target, "unsupported-set-op", m.legs[l].flag,
                   "membership flag '" + m.legs[l].flag + "' must be supplied to route the insert");
    }
    bool into = flagLiteral(r, m.legs[l].flag, rows.cell(0, static_cast<size_t>(at)));
    for (size_t row = 0; row < rows.ins.source->values.size(); ++row) {
      if (flagLiteral(r, m.legs[l].flag, rows.cell(row, static_cast<size_t>(at))) != into) {
        rejectInsert(r.target, "unsupported-set-op", m.legs[l].flag,
                     "membership flag '" + m.legs[l].flag + "' must take the same value on every row");
      }
      if (into) rows.legRows[l].push_back(row);
    }
  }
}

// Discriminated `union all`: a row goes to the legs whose literal columns it matches (an
// unsupplied discriminator matches any leg).
bool consistent(const MembershipBody& m, const InsertRows& rows, size_t leg, size_t row) {
  for (size_t i = 0; i < m.data.size(); ++i) {
    const ast::Expr* literal = m.legs[leg].literals[i];
    int at = rows.position(m.data[i]);
    if (!literal || at < 0) continue;
    const ast::Expr* v = rows.cell(row, static_cast<size_t>(at));
    if (!v || v->kind != ast::ExprKind::kLiteral || printExpr(*v) != printExpr(*literal)) return false;
  }
  return true;
}

void route(const MembershipBody& m, const ViewRewrite& r, InsertRows& rows) {
  if (m.rule == SetOpRule::kMembership) return routeByFlags(m, r, rows);
  for (size_t row = 0; row < rows.ins.source->values.size(); ++row) {
    for (size_t l = 0; l < 2; ++l) {
      bool into = m.rule == SetOpRule::kIntersect || (m.rule == SetOpRule::kExcept && l == 0) ||
                  (m.rule == SetOpRule::kDiscriminated && consistent(m, rows, l, row));
      if (into) rows.legRows[l].push_back(row);
    }
  }
}

// The supplied data columns the leg takes: not a flag, not one of the leg's literal columns.
std::vector<size_t> legColumns(const MembershipBody& m, const InsertRows& rows, size_t leg) {
  std::vector<size_t> out;
  for (size_t i = 0; i < rows.names.size(); ++i) {
    int d = dataIndex(m, rows.names[i]);
    if (d >= 0 && !m.legs[leg].literals[static_cast<size_t>(d)]) out.push_back(i);
  }
  return out;
}

std::unique_ptr<ast::Select> valuesOf(const InsertRows& rows, const std::vector<size_t>& which,
                                      const std::vector<size_t>& columns) {
  auto sel = std::make_unique<ast::Select>();
  for (size_t row : which) {
    std::vector<ExprPtr> values;
    for (size_t i : columns) {
      const ast::Expr* v = rows.cell(row, i);
      values.push_back(v ? ast::clone(*v) : makeNull());
    }
    sel->values.push_back(std::move(values));
  }
  return sel;
}

std::unique_ptr<ast::Statement> legInsert(const MembershipBody& m, const WriteTarget& t, size_t leg,
                                          const InsertRows& rows) {
  auto ins = std::make_unique<ast::Insert>();
  ins->with = legWith(m, t, leg);
  ins->orAction = rows.ins.orAction;
  ins->table = legName(t);
  std::vector<size_t> columns = legColumns(m, rows, leg);
  for (size_t i : columns) ins->columns.push_back(rows.names[i]);
  ins->source = valuesOf(rows, rows.legRows[leg], columns);
  ins->context = cloneContext(rows.ins.context);
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kInsert;
  stmt->insert = std::move(ins);
  return stmt;
}

// `except`: an inserted row that the right leg holds would stay hidden, so it leaves the right
// leg (matched on the supplied data columns).
std::unique_ptr<ast::Statement> exceptCleanup(const MembershipBody& m, const WriteTarget& t, const InsertRows& rows) {
  std::vector<size_t> columns = legColumns(m, rows, 0), dataCols;
  std::vector<size_t> all;
  for (size_t r = 0; r < rows.ins.source->values.size(); ++r) all.push_back(r);
  auto from = std::make_unique<ast::FromItem>();
  from->kind = ast::FromItem::Kind::kSubquery;
  from->select = valuesOf(rows, all, columns);
  from->alias = kCapture;
  for (size_t i : columns) {
    dataCols.push_back(static_cast<size_t>(dataIndex(m, rows.names[i])));
    from->columnAliases.push_back(newName(dataCols.back()));
  }
  auto sel = std::make_unique<ast::Select>();
  sel->columns = selectOne();
  sel->from = std::move(from);
  sel->where = dataMatch(m, true, dataCols);
  return legDelete(m, t, 1, existsSelect(std::move(sel)), rows.ins.context);
}

// True when `stmt` binds (its write would be accepted); nothing runs.
bool plans(Context& ctx, const std::string& homeSchema, const ast::Statement& stmt) {
  Binder binder(ctx);
  binder.setHomeSchema(homeSchema);
  try {
    switch (stmt.kind) {
      case ast::StatementKind::kInsert: bindInsert(binder, *stmt.insert); break;
      case ast::StatementKind::kUpdate: bindUpdate(binder, *stmt.update); break;
      default: bindDelete(binder, *stmt.del); break;
    }
  } catch (const Error& e) {  // a refusal means "would not plan"; a broken invariant is a bug
    if (e.code() == ErrorCode::kInternal) throw;
    return false;
  }
  return true;
}

}  // namespace

MembershipWritability probeMembershipWrites(Context& ctx, const ast::QualifiedName& view, const ast::Select& body,
                                            const std::vector<std::string>& columnNames) {
  WriteTarget t;
  t.name = view.name;
  t.body = &body;
  t.columnNames = columnNames;
  t.homeSchema = view.schema;
  MembershipWritability w;
  MembershipBody m;
  try {
    Binder binder(ctx);
    m = analyseSetOp(binder, t, "update");
  } catch (const Error& e) {  // not a writable set operation: nothing is writable
    if (e.code() == ErrorCode::kInternal) throw;
    return w;
  }
  ast::Statement del;
  del.kind = ast::StatementKind::kDelete;
  del.del = std::make_unique<ast::Delete>();
  del.del->table = view;
  w.deletable = plans(ctx, view.schema, del);
  for (const std::string& c : m.data) {
    ast::Statement up;
    up.kind = ast::StatementKind::kUpdate;
    up.update = std::make_unique<ast::Update>();
    up.update->table = view;
    up.update->set.push_back(ast::Assignment{c, makeColumn("", c), {}});
    if ((w.updatable = plans(ctx, view.schema, up))) break;
  }
  ast::Statement ins;
  ins.kind = ast::StatementKind::kInsert;
  ins.insert = std::make_unique<ast::Insert>();
  ins.insert->table = view;
  ins.insert->source = std::make_unique<ast::Select>();
  std::vector<ExprPtr> row;
  for (const BodyColumn& c : m.view.columns) {
    ins.insert->columns.push_back(c.name);
    row.push_back(legOfFlag(m, c.name) >= 0 ? literalExpr(Value::boolean(true)) : makeNull());
  }
  ins.insert->source->values.push_back(std::move(row));
  w.insertable = plans(ctx, view.schema, ins);
  return w;
}

bool isMembershipBody(const ast::Select& body) {
  return body.setOp != ast::SetOp::kNone && (!body.existsLeftAs.empty() || !body.existsRightAs.empty());
}

std::unique_ptr<DmlPlan> bindSetOpUpdate(Binder& binder, const ast::Update& up, const WriteTarget& t) {
  MembershipBody m = analyseSetOp(binder, t, "update");
  ViewRewrite r{binder, t, m.view, "update"};
  rejectReturning(t, "update", up.hasReturning);
  std::vector<ExprPtr> newValues;
  Assigned a = readAssignments(m, r, up.set, newValues);
  auto plan = std::make_unique<SetOpWritePlan>();
  CaptureScope scope(binder, *plan, up.with.get(), t, captureQuery(m, t, up.where.get(), std::move(newValues)));
  // Leaving legs first, then the data fan over the legs each row is in, then the legs it joins
  // (with its new data values).
  for (size_t l = 0; l < 2; ++l) {
    if (a.flag[l] == 0) plan->add(legDelete(m, t, l, capturedMember(m, l), up.context), binder);
  }
  if (std::find(a.data.begin(), a.data.end(), true) != a.data.end()) {
    for (size_t l = 0; l < 2; ++l) plan->add(legDataUpdate(m, t, l, a, up), binder);
    // `except`: an updated row the right leg holds would vanish, so it leaves the right leg.
    if (m.rule == SetOpRule::kExcept) {
      plan->add(legDelete(m, t, 1, existsSelect(fromCapture(dataMatch(m, true), selectOne())), up.context), binder);
    }
  }
  for (size_t l = 0; l < 2; ++l) {
    if (a.flag[l] == 1) plan->add(legFlipInsert(m, t, l, up), binder);
  }
  return plan;
}

std::unique_ptr<DmlPlan> bindSetOpDelete(Binder& binder, const ast::Delete& del, const WriteTarget& t) {
  MembershipBody m = analyseSetOp(binder, t, "delete");
  rejectReturning(t, "delete", del.hasReturning);
  auto plan = std::make_unique<SetOpWritePlan>();
  CaptureScope scope(binder, *plan, del.with.get(), t, captureQuery(m, t, del.where.get(), {}));
  for (size_t l = 0; l < 2; ++l) plan->add(legDelete(m, t, l, capturedMember(m, l), del.context), binder);
  return plan;
}

std::unique_ptr<DmlPlan> bindSetOpInsert(Binder& binder, const ast::Insert& ins, const WriteTarget& t) {
  MembershipBody m = analyseSetOp(binder, t, "insert");
  ViewRewrite r{binder, t, m.view, "insert"};
  rejectReturning(t, "insert", ins.hasReturning);
  if (!ins.source || ins.sourceDml || ins.source->values.empty() || ins.source->setOp != ast::SetOp::kNone) {
    rejectInsert(t, "unsupported-source", "", "an insert through a set-operation body requires a VALUES source");
  }
  InsertRows rows{ins, ins.columns, {}};
  if (rows.names.empty()) for (const BodyColumn& c : m.view.columns) rows.names.push_back(c.name);
  for (const std::string& n : rows.names) requireViewColumn(r, n);
  route(m, r, rows);
  for (size_t row = 0; row < ins.source->values.size(); ++row) {
    bool anywhere = std::any_of(std::begin(rows.legRows), std::end(rows.legRows), [row](const std::vector<size_t>& legRows) {
      return std::find(legRows.begin(), legRows.end(), row) != legRows.end();
    });
    if (!anywhere) rejectInsert(t, "unsupported-set-op", "", "the row is consistent with no writable leg");
  }
  auto plan = std::make_unique<SetOpWritePlan>();
  for (size_t l = 0; l < 2; ++l) {
    if (!rows.legRows[l].empty()) plan->add(legInsert(m, t, l, rows), binder);
  }
  if (m.rule == SetOpRule::kExcept) plan->add(exceptCleanup(m, t, rows), binder);
  return plan;
}

}  // namespace optic
