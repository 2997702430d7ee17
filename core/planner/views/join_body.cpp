// Multi-source body analysis (join_body.h).
#include "core/planner/views/join_body.h"

#include <algorithm>
#include <set>

#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/planner/binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/planner/predicates.h"

namespace optic {
namespace {

using ast::ExprKind;

[[noreturn]] void reject(const WriteTarget& t, const char* op, const std::string& reason, const std::string& what) {
  failMutation(MutationDiagnostic{reason, t.name, "", op}, cannotWrite(t) + what);
}

struct Collector {
  Binder& binder;
  const WriteTarget& t;
  const char* op;
  JoinBody& j;

  void from(const ast::FromItem& f) {
    switch (f.kind) {
      case ast::FromItem::Kind::kJoin: join(f); return;
      case ast::FromItem::Kind::kTable: table(f); return;
      default:
        reject(t, op, "unsupported-source", "a subquery or function source in a join has no recoverable base operation");
    }
  }

  void join(const ast::FromItem& f) {
    if (f.commaJoin || f.joinType == ast::JoinType::kCross) {
      reject(t, op, "unsupported-join", "a comma or cross join has no join condition; write it as JOIN … ON");
    }
    if (f.joinType == ast::JoinType::kFull) {
      reject(t, op, "unsupported-outer-join-update", "a FULL outer join has no preserved side and is not writable");
    }
    size_t begin = j.sides.size();
    from(*f.left);
    size_t mid = j.sides.size();
    from(*f.right);
    if (f.joinType == ast::JoinType::kLeft) markNullExtended(mid, j.sides.size());
    if (f.joinType == ast::JoinType::kRight) markNullExtended(begin, mid);
    nameExistenceFlag(f, begin, mid);
    if (f.on) {
      // An outer join's ON never filters its preserved input: a pin there binds no view row.
      size_t unfilteredBegin = f.joinType == ast::JoinType::kLeft ? begin : f.joinType == ast::JoinType::kRight ? mid : 0;
      size_t unfilteredEnd = f.joinType == ast::JoinType::kLeft ? mid : f.joinType == ast::JoinType::kRight ? j.sides.size() : 0;
      size_t first = j.pins.size();
      conjuncts(*f.on);
      for (size_t p = first; p < j.pins.size(); ++p) {
        size_t side = static_cast<size_t>(j.pins[p].column.side);
        j.pins[p].filters = side < unfilteredBegin || side >= unfilteredEnd;
      }
    }
    for (const std::string& u : f.usingColumns) usingEquality(u, begin, mid, j.sides.size());
  }

  // A flag the body names on the null-extendable input of a LEFT/RIGHT join flags that input's
  // side when the input is one table (a flag over a nested join names no single side).
  void nameExistenceFlag(const ast::FromItem& f, size_t begin, size_t mid) {
    bool left = f.joinType == ast::JoinType::kLeft;
    if (!left && f.joinType != ast::JoinType::kRight) return;
    const std::string& name = left ? (f.existsRightAs.empty() ? f.existsAs : f.existsRightAs)
                                   : (f.existsLeftAs.empty() ? f.existsAs : f.existsLeftAs);
    const ast::FromItem& input = left ? *f.right : *f.left;
    if (name.empty() || input.kind != ast::FromItem::Kind::kTable) return;
    j.existenceFlags.emplace_back(name, static_cast<int>(left ? mid : begin));
  }

  void markNullExtended(size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) j.sides[i].preserved = false;
  }

  int sideHaving(const std::string& column, size_t b, size_t e) const {
    for (size_t i = b; i < e; ++i) if (j.sides[i].schema().findColumn(column) >= 0) return static_cast<int>(i);
    return -1;
  }

  void usingEquality(const std::string& u, size_t begin, size_t mid, size_t end) {
    int l = sideHaving(u, begin, mid), r = sideHaving(u, mid, end);
    if (l >= 0 && r >= 0) j.equalities.emplace_back(SideColumn{l, u}, SideColumn{r, u});
  }

  void table(const ast::FromItem& f) {
    Catalog& cat = binder.ctx().catalog();
    Binder home(binder.ctx());
    home.setHomeSchema(t.homeSchema);
    JoinSide side;
    side.qualifier = f.alias.empty() ? f.table.name : f.alias;
    side.table = f.table;
    side.table.schema = home.resolveTableSchema(f.table);
    if (cat.findView(side.table.schema, f.table.name) && !cat.findTable(side.table.schema, f.table.name)) {
      reject(t, op, "nested-view", "its body references another view; nested-view mutation is not yet supported");
    }
    side.object = cat.findTable(side.table.schema, f.table.name);
    if (!side.object) throw Error(ErrorCode::kNotFound, "Table '" + f.table.name + "' not found");
    if (side.object->schema().primaryKey.empty()) {
      reject(t, op, "unsupported-join", "join side '" + side.qualifier + "' has no primary key to identify its rows");
    }
    j.sides.push_back(std::move(side));
  }

  void conjuncts(const ast::Expr& where) {
    for (const ast::Expr* c : conjunctsOf(&where)) conjunct(*c);
  }

  // An equality between two sides' columns, or pinning one side's column to a literal.
  void conjunct(const ast::Expr& e) {
    if (!isEquality(e)) return;
    const ast::Expr& a = *e.args[0];
    const ast::Expr& b = *e.args[1];
    int sa = a.kind == ExprKind::kColumn ? sideOf(j, a) : -1;
    int sb = b.kind == ExprKind::kColumn ? sideOf(j, b) : -1;
    if (sa >= 0 && sb >= 0) j.equalities.emplace_back(SideColumn{sa, a.name}, SideColumn{sb, b.name});
    else if (sa >= 0 && b.kind == ExprKind::kLiteral) j.pins.push_back(SidePin{SideColumn{sa, a.name}, &b});
    else if (sb >= 0 && a.kind == ExprKind::kLiteral) j.pins.push_back(SidePin{SideColumn{sb, b.name}, &a});
  }
};

// Qualifies the bare column references of a forward expression with their owning side, so the
// expression means the same wherever a substitution copies it (subqueries keep their scope).
void qualifySides(const JoinBody& j, ast::Expr& e) {
  if (e.kind == ExprKind::kColumn) {
    if (!e.table.empty()) return;
    int s = sideOf(j, e);
    if (s >= 0) e.table = j.sides[s].qualifier;
    return;
  }
  for (ast::ExprPtr& a : e.args) if (a) qualifySides(j, *a);
  for (ast::CaseWhen& w : e.whens) {
    qualifySides(j, *w.when);
    qualifySides(j, *w.then);
  }
  if (e.elseExpr) qualifySides(j, *e.elseExpr);
}

void addColumns(const WriteTarget& t, const char* op, JoinBody& j) {
  for (const ast::ResultColumn& rc : t.body->columns) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) {
      reject(t, op, "unsupported-join", "a `select *` join body is not writable; list the join's output columns explicitly");
    }
    BodyColumn c;
    c.name = resultColumnName(rc);
    j.qualifiedExprs.push_back(ast::clone(*rc.expr));
    qualifySides(j, *j.qualifiedExprs.back());
    c.expr = j.qualifiedExprs.back().get();
    int side = -1;
    if (rc.hasInverse) {
      c.kind = ColumnClass::kAuthored;
      c.authored = &rc;
    } else {
      // A side's generated column is no base column a write can reach: read-only, like any
      // computed expression.
      classifyColumn(*rc.expr, [&](const ast::Expr& ref) {
        int s = sideOf(j, ref);
        int col = s >= 0 ? j.sides[s].schema().findColumn(ref.name) : -1;
        return col >= 0 && !j.sides[s].schema().columns[col].generated ? ref.name : std::string();
      }, c);
      if (c.baseRef) side = sideOf(j, *c.baseRef);
    }
    j.columnFlagOf.push_back(rc.hasInverse ? -1 : flaggedSideOf(j, *rc.expr));
    j.view.columns.push_back(std::move(c));
    j.columnSide.push_back(side);
  }
}

// The partner's columns the join pins per owner row: equated to an owner column or a literal.
std::set<std::string> constrainedColumns(const JoinBody& j, int owner, int partner) {
  std::set<std::string> out;
  for (const auto& [a, b] : j.equalities) {
    if (a.side == partner && b.side == owner) out.insert(lowerName(a.column));
    if (b.side == partner && a.side == owner) out.insert(lowerName(b.column));
  }
  for (const SidePin& p : j.pins) if (p.column.side == partner) out.insert(lowerName(p.column.column));
  return out;
}

bool covers(const std::set<std::string>& cols, const TableSchema& t, const std::vector<KeyColumn>& key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [&](const KeyColumn& k) { return cols.count(lowerName(t.columns[k.column].name)) > 0; });
}

}  // namespace

bool SideColumn::operator==(const SideColumn& o) const { return side == o.side && lowerName(column) == lowerName(o.column); }

int flaggedSideOf(const JoinBody& j, const ast::Expr& ref) {
  if (ref.kind != ExprKind::kColumn || !ref.table.empty() || sideOf(j, ref) >= 0) return -1;
  for (const auto& [name, side] : j.existenceFlags) if (lowerName(name) == lowerName(ref.name)) return side;
  return -1;
}

int sideOf(const JoinBody& j, const ast::Expr& ref) {
  if (ref.kind != ExprKind::kColumn) return -1;
  int found = -1;
  for (size_t i = 0; i < j.sides.size(); ++i) {
    const JoinSide& s = j.sides[i];
    bool match = ref.table.empty() ? s.schema().findColumn(ref.name) >= 0 : lowerName(ref.table) == lowerName(s.qualifier);
    if (!match) continue;
    if (found >= 0) return ref.table.empty() ? -1 : found;
    found = static_cast<int>(i);
  }
  return found;
}

JoinBody analyseJoin(Binder& binder, const WriteTarget& t, const char* op) {
  rejectUnwritableShape(binder, t, op);
  JoinBody j;
  Collector{binder, t, op, j}.from(*t.body->from);
  addColumns(t, op, j);
  if (!t.columnNames.empty()) {
    if (t.columnNames.size() != j.view.columns.size()) {
      fail("View '" + t.name + "' has " + std::to_string(t.columnNames.size()) + " declared columns but body produces " +
           std::to_string(j.view.columns.size()));
    }
    for (size_t i = 0; i < j.view.columns.size(); ++i) j.view.columns[i].name = t.columnNames[i];
  }
  for (const JoinSide& side : j.sides) {
    for (const ColumnSchema& c : side.schema().columns) j.view.sourceColumns.push_back(c.name);
  }
  j.view.where = t.body->where.get();
  if (j.view.where) Collector{binder, t, op, j}.conjuncts(*j.view.where);
  ast::FromItemPtr probe = ast::clone(*t.body->from);
  for (const std::string& name : flagNullExtendableSides(*probe, j)) j.matchFlagged.push_back(!name.empty());
  return j;
}

namespace {

bool holdsSide(const ast::FromItem& f, const JoinSide& s) {
  if (f.kind == ast::FromItem::Kind::kTable) return lowerName(f.alias.empty() ? f.table.name : f.alias) == lowerName(s.qualifier);
  return (f.left && holdsSide(*f.left, s)) || (f.right && holdsSide(*f.right, s));
}

// `sub` is the null-extendable input of an outer join; its flag marks the side it holds directly.
void flagSide(ast::FromItem& sub, std::string& flag, const JoinBody& j, std::vector<std::string>& names) {
  if (sub.kind != ast::FromItem::Kind::kTable) return;
  for (size_t i = 0; i < j.sides.size(); ++i) {
    if (j.sides[i].preserved || !names[i].empty() || !holdsSide(sub, j.sides[i])) continue;
    if (flag.empty()) flag = "__matched_" + std::to_string(i);
    names[i] = flag;
    return;
  }
}

void flagJoins(ast::FromItem& f, const JoinBody& j, std::vector<std::string>& names) {
  if (f.kind != ast::FromItem::Kind::kJoin) return;
  // A body-named flag (`exists as`, or the side spelled out) is reused, never doubled.
  if (f.joinType == ast::JoinType::kLeft) flagSide(*f.right, f.existsRightAs.empty() ? f.existsAs : f.existsRightAs, j, names);
  if (f.joinType == ast::JoinType::kRight) flagSide(*f.left, f.existsLeftAs.empty() ? f.existsAs : f.existsLeftAs, j, names);
  if (f.joinType == ast::JoinType::kFull) {
    flagSide(*f.left, f.existsLeftAs, j, names);
    flagSide(*f.right, f.existsRightAs, j, names);
  }
  if (f.left) flagJoins(*f.left, j, names);
  if (f.right) flagJoins(*f.right, j, names);
}

}  // namespace

std::vector<std::string> flagNullExtendableSides(ast::FromItem& from, const JoinBody& j) {
  std::vector<std::string> names(j.sides.size());
  flagJoins(from, j, names);
  return names;
}

bool referencesSide(const JoinBody& j, int child, int parent) {
  const TableSchema& p = j.sides[parent].schema();
  for (const ForeignKey& fk : j.sides[child].schema().foreignKeys) {
    if (fk.parentSchema == p.schemaName && lowerName(fk.parentTable) == lowerName(p.name)) return true;
  }
  return false;
}

std::vector<int> parentFirst(const JoinBody& j, std::vector<int> sides) {
  std::vector<int> out;
  while (!sides.empty()) {
    size_t pick = 0;
    for (size_t i = 0; i < sides.size(); ++i) {
      bool hasParent = std::any_of(sides.begin(), sides.end(), [&](int o) {
        return o != sides[i] && referencesSide(j, sides[i], o) && !referencesSide(j, o, sides[i]);
      });
      if (!hasParent) {
        pick = i;
        break;
      }
    }
    out.push_back(sides[pick]);
    sides.erase(sides.begin() + static_cast<long>(pick));
  }
  return out;
}

bool joinsAtMostOne(const JoinBody& j, int owner, int partner) {
  const TableSchema& p = j.sides[partner].schema();
  std::set<std::string> cols = constrainedColumns(j, owner, partner);
  if (covers(cols, p, p.primaryKey)) return true;
  return std::any_of(p.indexes.begin(), p.indexes.end(),
                     [&](const IndexSchema& ix) { return ix.unique && !ix.where && covers(cols, p, ix.columns); });
}

}  // namespace optic
