// Writes through set-operation bodies with membership flags (setop_mutation.h).
#include "core/planner/setop_mutation.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/execution/operator.h"
#include "core/parser/ast_clone.h"
#include "core/planner/binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/planner/view_body.h"
#include "core/planner/view_lowering.h"

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
  std::string flag;  // the view's name for the leg's membership flag
};

// The view as the write sees it: data columns, then the flags; per leg its body and flag.
struct MembershipBody {
  std::vector<std::string> data;
  Leg legs[2];
  SingleSource view;  // every view column by name (for the encapsulation guard's messages)
};

MembershipBody analyseMembership(const WriteTarget& t, const char* op) {
  const ast::Select& b = *t.body;
  if (t.recursive) reject(t, op, "recursive-cte", "a recursive CTE has no recoverable base operation");
  if (b.setOp == ast::SetOp::kDiff) {
    reject(t, op, "unsupported-set-op", "membership flags of a `diff` body are not writable");
  }
  if (b.existsLeftAs.empty() || b.existsRightAs.empty()) {
    reject(t, op, "unsupported-set-op", "a set-operation body is writable through a membership flag on each side");
  }
  if (b.left->setOp != ast::SetOp::kNone || b.right->setOp != ast::SetOp::kNone) {
    reject(t, op, "unsupported-set-op", "a nested set operation in a membership body is not yet writable");
  }
  if (!b.orderBy.empty() || b.limit || b.offset) {
    reject(t, op, "unsupported-limit", "a LIMIT/OFFSET body is not decomposable in phase 1 (a write could escape the row window)");
  }
  MembershipBody m;
  for (const ast::ResultColumn& rc : b.left->columns) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) {
      reject(t, op, "unsupported-set-op", "a `select *` leg is not writable; list the leg's output columns explicitly");
    }
    m.data.push_back(resultColumnName(rc));
  }
  m.legs[0] = Leg{b.left.get(), b.existsLeftAs};
  m.legs[1] = Leg{b.right.get(), b.existsRightAs};
  if (!t.columnNames.empty()) {
    if (t.columnNames.size() != m.data.size() + 2) {
      fail("View '" + t.name + "' has " + std::to_string(t.columnNames.size()) + " declared columns but body produces " +
           std::to_string(m.data.size() + 2));
    }
    for (size_t i = 0; i < m.data.size(); ++i) m.data[i] = t.columnNames[i];
    m.legs[0].flag = t.columnNames[m.data.size()];
    m.legs[1].flag = t.columnNames[m.data.size() + 1];
  }
  for (const std::string& n : m.data) m.view.columns.push_back(BodyColumn{n});
  for (const Leg& l : m.legs) m.view.columns.push_back(BodyColumn{l.flag});
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
  from->alias = t.qualifier();
  for (const BodyColumn& c : m.view.columns) from->columnAliases.push_back(c.name);
  sel->from = std::move(from);
  sel->where = ast::cloneOrNull(where);
  return sel;
}

// `capture.__d<i> = <view column> (NULL-safe) and …`: the captured row, matched by its data.
ExprPtr dataMatch(const MembershipBody& m) {
  ExprPtr out;
  for (size_t i = 0; i < m.data.size(); ++i) {
    ExprPtr eq = makeBinary("=", makeColumn(kCapture, dataName(i)), makeColumn("", m.data[i]));
    ExprPtr bothNull = makeBinary("and", isNullExpr(makeColumn(kCapture, dataName(i))), isNullExpr(makeColumn("", m.data[i])));
    out = conjoin(std::move(out), makeBinary("or", std::move(eq), std::move(bothNull)));
  }
  return out;
}

std::unique_ptr<ast::Select> fromCapture(ExprPtr where, std::vector<ast::ResultColumn> columns) {
  return selectFrom(kCapture, std::move(where), std::move(columns));
}

// The captured rows that are members of `leg`, matched to the leg row by data.
ExprPtr capturedMember(const MembershipBody& m, size_t leg) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kExists;
  std::vector<ast::ResultColumn> one;
  one.push_back(aliased(literalExpr(Value::integer(1)), ""));
  e->select = fromCapture(makeBinary("and", makeColumn(kCapture, flagName(leg)), dataMatch(m)), std::move(one));
  return e;
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
  cte.select = ast::clone(*m.legs[leg].body);
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
    for (auto& leg : legs) leg->execute(st);
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

std::unique_ptr<ast::Statement> legDelete(const MembershipBody& m, const WriteTarget& t, size_t leg,
                                          const std::vector<ast::ContextAssignment>& context) {
  auto del = std::make_unique<ast::Delete>();
  del->with = legWith(m, t, leg);
  del->table = legName(t);
  del->where = capturedMember(m, leg);
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

[[noreturn]] void rejectInsert(const WriteTarget& t, const std::string& reason, const std::string& column,
                               const std::string& what) {
  failMutation(MutationDiagnostic{reason, t.name, column, "insert"}, "cannot insert through view '" + t.name + "': " + what);
}

// Per leg, the flag every VALUES row supplies (required, a boolean literal, uniform).
std::vector<bool> insertRouting(const MembershipBody& m, const ViewRewrite& r, const ast::Insert& ins,
                                const std::vector<std::string>& names) {
  std::vector<bool> into(2, false);
  for (size_t l = 0; l < 2; ++l) {
    auto at = std::find_if(names.begin(), names.end(), [&](const std::string& n) { return lowerName(n) == lowerName(m.legs[l].flag); });
    if (at == names.end()) {
      rejectInsert(r.target, "unsupported-set-op", m.legs[l].flag,
                   "membership flag '" + m.legs[l].flag + "' must be supplied to route the insert");
    }
    size_t i = static_cast<size_t>(at - names.begin());
    auto cell = [i](const std::vector<ExprPtr>& row) { return i < row.size() ? row[i].get() : nullptr; };
    into[l] = flagLiteral(r, m.legs[l].flag, cell(ins.source->values[0]));
    for (const std::vector<ExprPtr>& row : ins.source->values) {
      if (flagLiteral(r, m.legs[l].flag, cell(row)) != into[l]) {
        rejectInsert(r.target, "flag-literal", m.legs[l].flag,
                     "membership flag '" + m.legs[l].flag + "' must take the same value on every row");
      }
    }
  }
  if (!into[0] && !into[1]) rejectInsert(r.target, "unsupported-set-op", "", "the row is consistent with no writable leg");
  return into;
}

std::unique_ptr<ast::Statement> legInsert(const MembershipBody& m, const WriteTarget& t, size_t leg,
                                          const ast::Insert& user, const std::vector<std::string>& names) {
  auto ins = std::make_unique<ast::Insert>();
  ins->with = legWith(m, t, leg);
  ins->orAction = user.orAction;
  ins->table = legName(t);
  std::vector<size_t> keep;
  for (size_t i = 0; i < names.size(); ++i) {
    if (legOfFlag(m, names[i]) < 0) {
      keep.push_back(i);
      ins->columns.push_back(names[i]);
    }
  }
  ins->source = std::make_unique<ast::Select>();
  for (const std::vector<ExprPtr>& row : user.source->values) {
    std::vector<ExprPtr> values;
    for (size_t i : keep) values.push_back(i < row.size() ? ast::clone(*row[i]) : makeNull());
    ins->source->values.push_back(std::move(values));
  }
  ins->context = cloneContext(user.context);
  auto stmt = std::make_unique<ast::Statement>();
  stmt->kind = ast::StatementKind::kInsert;
  stmt->insert = std::move(ins);
  return stmt;
}

// True when `stmt` binds (its write would be accepted); nothing runs.
bool plans(Engine& engine, const std::string& homeSchema, const ast::Statement& stmt) {
  Binder binder(engine);
  binder.setHomeSchema(homeSchema);
  try {
    switch (stmt.kind) {
      case ast::StatementKind::kInsert: bindInsert(binder, *stmt.insert); break;
      case ast::StatementKind::kUpdate: bindUpdate(binder, *stmt.update); break;
      default: bindDelete(binder, *stmt.del); break;
    }
  } catch (const Error&) {
    return false;
  }
  return true;
}

}  // namespace

MembershipWritability probeMembershipWrites(Engine& engine, const ast::QualifiedName& view, const ast::Select& body,
                                            const std::vector<std::string>& columnNames) {
  WriteTarget t;
  t.name = view.name;
  t.body = &body;
  t.columnNames = columnNames;
  MembershipWritability w;
  MembershipBody m;
  try {
    m = analyseMembership(t, "update");
  } catch (const Error&) {
    return w;
  }
  ast::Statement del;
  del.kind = ast::StatementKind::kDelete;
  del.del = std::make_unique<ast::Delete>();
  del.del->table = view;
  w.deletable = plans(engine, view.schema, del);
  for (const std::string& c : m.data) {
    ast::Statement up;
    up.kind = ast::StatementKind::kUpdate;
    up.update = std::make_unique<ast::Update>();
    up.update->table = view;
    up.update->set.push_back(ast::Assignment{c, makeColumn("", c), {}});
    if ((w.updatable = plans(engine, view.schema, up))) break;
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
  w.insertable = plans(engine, view.schema, ins);
  return w;
}

bool isMembershipBody(const ast::Select& body) {
  return body.setOp != ast::SetOp::kNone && (!body.existsLeftAs.empty() || !body.existsRightAs.empty());
}

std::unique_ptr<DmlPlan> bindSetOpUpdate(Binder& binder, const ast::Update& up, const WriteTarget& t) {
  MembershipBody m = analyseMembership(t, "update");
  ViewRewrite r{binder, t, m.view, "update"};
  rejectReturning(t, "update", up.hasReturning);
  std::vector<ExprPtr> newValues;
  Assigned a = readAssignments(m, r, up.set, newValues);
  auto plan = std::make_unique<SetOpWritePlan>();
  CaptureScope scope(binder, *plan, up.with.get(), t, captureQuery(m, t, up.where.get(), std::move(newValues)));
  // Leaving legs first, then the data fan over the legs each row is in, then the legs it joins
  // (with its new data values).
  for (size_t l = 0; l < 2; ++l) {
    if (a.flag[l] == 0) plan->add(legDelete(m, t, l, up.context), binder);
  }
  if (std::find(a.data.begin(), a.data.end(), true) != a.data.end()) {
    for (size_t l = 0; l < 2; ++l) plan->add(legDataUpdate(m, t, l, a, up), binder);
  }
  for (size_t l = 0; l < 2; ++l) {
    if (a.flag[l] == 1) plan->add(legFlipInsert(m, t, l, up), binder);
  }
  return plan;
}

std::unique_ptr<DmlPlan> bindSetOpDelete(Binder& binder, const ast::Delete& del, const WriteTarget& t) {
  MembershipBody m = analyseMembership(t, "delete");
  rejectReturning(t, "delete", del.hasReturning);
  auto plan = std::make_unique<SetOpWritePlan>();
  CaptureScope scope(binder, *plan, del.with.get(), t, captureQuery(m, t, del.where.get(), {}));
  for (size_t l = 0; l < 2; ++l) plan->add(legDelete(m, t, l, del.context), binder);
  return plan;
}

std::unique_ptr<DmlPlan> bindSetOpInsert(Binder& binder, const ast::Insert& ins, const WriteTarget& t) {
  MembershipBody m = analyseMembership(t, "insert");
  ViewRewrite r{binder, t, m.view, "insert"};
  rejectReturning(t, "insert", ins.hasReturning);
  if (!ins.source || ins.sourceDml || ins.source->values.empty() || ins.source->setOp != ast::SetOp::kNone) {
    rejectInsert(t, "unsupported-source", "", "an insert routed by membership flags requires a VALUES source");
  }
  std::vector<std::string> names = ins.columns;
  if (names.empty()) for (const BodyColumn& c : m.view.columns) names.push_back(c.name);
  for (const std::string& n : names) requireViewColumn(r, n);
  std::vector<bool> into = insertRouting(m, r, ins, names);
  auto plan = std::make_unique<SetOpWritePlan>();
  for (size_t l = 0; l < 2; ++l) {
    if (into[l]) plan->add(legInsert(m, t, l, ins, names), binder);
  }
  return plan;
}

}  // namespace optic
