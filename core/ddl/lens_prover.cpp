// Lens prover (lens_prover.h).
#include "core/ddl/lens_prover.h"

#include <algorithm>
#include <functional>

#include "core/common/error.h"
#include "core/common/names.h"
#include "core/common/value_ops.h"
#include "core/ddl/lens_terms.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"

namespace optic {
namespace {

enum class TermKind : uint8_t { kBare, kOffset, kAuthored, kComputed };

struct Term {
  TermKind kind = TermKind::kComputed;
  const ast::ResultColumn* rc = nullptr;
  const LensSource* source = nullptr;  // kBare: the table it reads
  int basisColumn = -1;                // kBare: its column; kAuthored: the put target
  bool bijective = false;              // kAuthored: proved a bijection (single source, one put)
  bool nullable = false;
};

std::string quotedList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

const char* family(LogicalType t) {
  switch (t) {
    case LogicalType::kInteger:
    case LogicalType::kReal:
    case LogicalType::kNumeric:
    case LogicalType::kBoolean: return "numeric";
    case LogicalType::kText: return "text";
    case LogicalType::kBlob: return "blob";
    default: return "";  // ANY, NULL, temporal, JSON: compatible with anything
  }
}

bool isNumberLiteral(const ast::Expr& e) {
  return e.kind == ast::ExprKind::kLiteral && (e.value.kind() == ValueKind::kInteger || e.value.kind() == ValueKind::kReal);
}

// `c + k`, `c - k`, `k + c` over a bare column (the updatable-view machinery inverts these).
bool isOffset(const ast::Expr& e) {
  if (e.kind != ast::ExprKind::kBinary || (e.op != "+" && e.op != "-")) return false;
  const ast::Expr& l = *e.args[0];
  const ast::Expr& r = *e.args[1];
  return (l.kind == ast::ExprKind::kColumn && isNumberLiteral(r)) || (e.op == "+" && isNumberLiteral(l) && r.kind == ast::ExprKind::kColumn);
}

class Prover {
 public:
  Prover(Context& ctx, const std::string& schema, const TableSchema& logical, const CompiledLensBody& body,
         const LogicalTables& siblings)
      : ctx_(ctx), schema_(schema), t_(logical), body_(body), siblings_(siblings) {
    proof_.slot = std::make_shared<LensSlot>();
    single_ = body.sources.size() == 1 ? body.sources.front().table.get() : nullptr;
  }

  LensProof run() {
    classifyTerms();
    checkTypes();
    checkWritableIntent();
    proveAuthored();
    bool readOnly = checkKeyReconstructible();
    adviseLossy(readOnly);
    classifyConstraints(readOnly);
    adviseAccessPatterns();
    advisePartialOverride();
    fillSlot(readOnly);
    return std::move(proof_);
  }

 private:
  // ---- terms -------------------------------------------------------------------------------

  bool exprNullable(const ast::Expr& e) const {
    bool nullable = false;
    ast::anyExpr(e, [&](const ast::Expr& x) {
      if (x.kind == ast::ExprKind::kColumn) {
        auto [src, c] = bareColumnSource(body_, x);
        if (!src || src->optional || !src->table->schema().columns[c].notNull) nullable = true;
      }
      if (x.select || (x.kind == ast::ExprKind::kCase && !x.elseExpr) ||
          (x.kind == ast::ExprKind::kLiteral && x.value.isNull())) {
        nullable = true;
      }
      return false;
    }, false);
    return nullable;
  }

  void classifyTerms() {
    for (const ast::ResultColumn& rc : body_.select->columns) {
      Term term;
      term.rc = &rc;
      auto [src, c] = bareColumnSource(body_, *rc.expr);
      if (rc.hasInverse) {
        term.kind = TermKind::kAuthored;
        if (single_ && rc.inverse.size() == 1) term.basisColumn = single_->schema().findColumn(rc.inverse[0].column);
      } else if (src) {
        term.kind = TermKind::kBare;
        term.source = src;
        term.basisColumn = c;
      } else if (isOffset(*rc.expr)) {
        term.kind = TermKind::kOffset;
      }
      term.nullable = src ? (src->optional || !src->table->schema().columns[c].notNull) : exprNullable(*rc.expr);
      terms_.push_back(term);
    }
  }

  const Term* termOf(const std::string& column) const {
    int i = t_.findColumn(column);
    return i < 0 ? nullptr : &terms_[i];
  }

  void error(std::string code, std::optional<std::string> constraint, std::optional<std::string> column, std::string message) {
    proof_.errors.push_back(LensDiagnostic{std::move(code), t_.name, std::move(constraint), std::move(column),
                                           std::move(message), "", {}});
  }

  void warn(LensDiagnostic d) {
    d.table = t_.name;
    proof_.warnings.push_back(std::move(d));
  }

  // ---- type and nullability ----------------------------------------------------------------

  void checkTypes() {
    Binder binder(ctx_);
    QueryPlan plan = binder.bindQuery(*body_.select, nullptr);
    for (size_t i = 0; i < t_.columns.size() && i < plan.columns.size(); ++i) {
      const ColumnSchema& c = t_.columns[i];
      LogicalType derived = terms_[i].kind == TermKind::kBare
                                ? terms_[i].source->table->schema().columns[terms_[i].basisColumn].type
                                : plan.columns[i].type;
      std::string a = family(c.type), b = family(derived);
      if (!a.empty() && !b.empty() && a != b) {
        error("lens.type-mismatch", std::nullopt, c.name,
              "lens: logical column '" + t_.name + "." + c.name + "' declares type '" +
                  std::string(logicalTypeName(c.type)) + "' but its basis-derived expression has type '" +
                  std::string(logicalTypeName(derived)) + "' (incompatible storage affinities)");
        continue;
      }
      if (c.notNull && terms_[i].nullable && !c.defaultExpr) {
        error("lens.nullability-mismatch", std::nullopt, c.name,
              "lens: logical column '" + t_.name + "." + c.name +
                  "' is declared NOT NULL but its basis-derived expression is nullable and no default supplies a value");
      }
    }
  }

  // `quereus.lens.writable = true`: the column must have a write path.
  void checkWritableIntent() {
    for (size_t i = 0; i < t_.columns.size(); ++i) {
      bool wants = false;
      for (const ast::Tag& tag : t_.columns[i].tags) {
        if (lowerName(tag.key) == "quereus.lens.writable" && truthValue(tag.value).value_or(false)) wants = true;
      }
      if (!wants || terms_[i].kind != TermKind::kComputed) continue;
      error("lens.non-invertible", std::nullopt, t_.columns[i].name,
            "lens: logical column '" + t_.name + "." + t_.columns[i].name +
                "' is declared writable (quereus.lens.writable = true) but its basis expression '" +
                printExpr(*terms_[i].rc->expr) + "' has no inverse; author one with `with inverse (…)`");
    }
  }

  // ---- authored inverses: PutGet and bijectivity over enumerable CHECK domains -------------

  // The values a CHECK in-list of `t` allows for `column`, narrowed by every other CHECK that
  // reads only that column; nullopt when no in-list enumerates it.
  std::optional<std::vector<Value>> domainOf(const TableSchema& t, const std::string& column) const {
    std::string key = lowerName(column);
    std::optional<std::vector<Value>> values;
    for (const CheckConstraint& ck : t.checks) {
      const ast::Expr& e = *ck.expr;
      if (e.kind != ast::ExprKind::kInList || e.negated || e.args[0]->kind != ast::ExprKind::kColumn ||
          lowerName(e.args[0]->name) != key || values) {
        continue;
      }
      values.emplace();
      for (size_t i = 1; i < e.args.size(); ++i) {
        if (e.args[i]->kind != ast::ExprKind::kLiteral) return std::nullopt;
        values->push_back(e.args[i]->value);
      }
    }
    if (!values) return std::nullopt;
    std::vector<Value> kept;
    for (const Value& v : *values) {
      bool allowed = true;
      for (const CheckConstraint& ck : t.checks) {
        if (columnNames(*ck.expr) != std::set<std::string>{key} || holdsSubquery(*ck.expr)) continue;
        ast::ExprPtr at = substituteColumns(*ck.expr, [&](const ast::Expr&) { return literal(v); });
        std::optional<Value> r = foldConstant(ctx_, *at);
        if (r && truthValue(*r) == std::optional<bool>(false)) allowed = false;
      }
      if (allowed) kept.push_back(v);
    }
    return kept;
  }

  std::optional<Value> forwardAt(const Term& term, const Value& basisValue) const {
    const std::string target = lowerName(single_->schema().columns[term.basisColumn].name);
    ast::ExprPtr e = substituteColumns(*term.rc->expr, [&](const ast::Expr& col) -> ast::ExprPtr {
      return lowerName(col.name) == target ? literal(basisValue) : nullptr;
    });
    return foldConstant(ctx_, *e);
  }

  std::optional<Value> inverseAt(const Term& term, const std::string& column, const Value& logicalValue) const {
    ast::ExprPtr e = substituteColumns(*term.rc->inverse[0].value, [&](const ast::Expr& col) -> ast::ExprPtr {
      return lowerName(col.table) == "new" && lowerName(col.name) == lowerName(column) ? literal(logicalValue) : nullptr;
    });
    return foldConstant(ctx_, *e);
  }

  static bool sameValue(const Value& a, const Value& b) { return !a.isNull() && !b.isNull() && compareValues(a, b) == 0; }

  static bool contains(const std::vector<Value>& set, const Value& v) {
    return std::any_of(set.begin(), set.end(), [&](const Value& x) { return sameValue(x, v); });
  }

  void proveAuthored() {
    for (size_t i = 0; i < terms_.size(); ++i) {
      Term& term = terms_[i];
      if (term.kind != TermKind::kAuthored || term.basisColumn < 0) continue;
      const std::string& column = t_.columns[i].name;
      std::optional<std::vector<Value>> logicalDomain = domainOf(t_, column);
      if (logicalDomain) checkPutGet(term, column, *logicalDomain);
      std::optional<std::vector<Value>> basisDomain = domainOf(single_->schema(), single_->schema().columns[term.basisColumn].name);
      if (!basisDomain) continue;
      bool bijective = true;
      for (const Value& b : *basisDomain) {
        std::optional<Value> g = forwardAt(term, b);
        std::optional<Value> back = g ? inverseAt(term, column, *g) : std::nullopt;
        if (!g || !back || !sameValue(*back, b) || (logicalDomain && !contains(*logicalDomain, *g))) bijective = false;
      }
      term.bijective = bijective;
    }
  }

  void checkPutGet(const Term& term, const std::string& column, const std::vector<Value>& domain) {
    for (const Value& v : domain) {
      std::optional<Value> put = inverseAt(term, column, v);
      std::optional<Value> got = put ? forwardAt(term, *put) : std::nullopt;
      if (!got) return;  // not foldable: PutGet stays unverified
      if (sameValue(*got, v)) continue;
      error("lens.putget-violation", std::nullopt, column,
            "lens: the authored inverse of '" + t_.name + "." + column + "' violates PutGet: writing " +
                printLiteral(v) + " puts " + printLiteral(*put) + " into basis column '" +
                single_->schema().columns[term.basisColumn].name + "', which reads back as " + printLiteral(*got));
      return;
    }
  }

  // ---- keys --------------------------------------------------------------------------------

  // A term a key or CHECK may rely on: written back exactly (bare, or a proved bijection).
  static bool reconstructible(const Term& t) { return t.kind == TermKind::kBare || (t.kind == TermKind::kAuthored && t.bijective); }

  bool checkKeyReconstructible() {
    std::vector<std::string> bad;
    for (const KeyColumn& k : t_.primaryKey) {
      if (!reconstructible(terms_[k.column])) bad.push_back(t_.columns[k.column].name);
    }
    if (bad.empty()) return false;
    LensDiagnostic d;
    d.code = "lens.pk-not-reconstructible";
    d.message = "lens: logical table '" + t_.name + "' is read-only — its primary key is not reconstructible at the lens "
                "boundary (column(s) " + quotedList(bad) + " have no invertible basis write path); mutations against "
                "it will error";
    d.fingerprint = "pk:" + quotedList(bad);
    d.ackTargets = bad;
    warn(std::move(d));
    return true;
  }

  void adviseLossy(bool readOnly) {
    if (readOnly || !single_) return;
    for (size_t i = 0; i < terms_.size(); ++i) {
      const Term& term = terms_[i];
      if (term.kind != TermKind::kAuthored || term.bijective) continue;
      LensDiagnostic d;
      d.code = "lens.getput-lossy";
      d.column = t_.columns[i].name;
      d.message = "lens: the authored inverse of '" + t_.name + "." + t_.columns[i].name +
                  "' is not proved a bijection over the basis domain — writing back a read value may normalize the "
                  "basis (GetPut is surrendered)";
      d.fingerprint = "getput:" + printExpr(*term.rc->expr);
      d.ackTargets = {t_.columns[i].name};
      warn(std::move(d));
    }
  }

  struct BasisKey {
    std::vector<int> columns;
    ast::ConflictAction onConflict = ast::ConflictAction::kNone;
  };

  static std::vector<BasisKey> basisKeys(const TableSchema& b) {
    std::vector<BasisKey> keys;
    BasisKey pk{{}, b.pkConflict};
    for (const KeyColumn& k : b.primaryKey) pk.columns.push_back(k.column);
    if (!pk.columns.empty()) keys.push_back(pk);
    for (const IndexSchema& ix : b.indexes) {
      if (!ix.unique || ix.where) continue;
      BasisKey k{{}, ix.onConflict};
      for (const KeyColumn& c : ix.columns) k.columns.push_back(c.column);
      keys.push_back(k);
    }
    return keys;
  }

  static bool resolvesConflicts(ast::ConflictAction a) {
    return a == ast::ConflictAction::kReplace || a == ast::ConflictAction::kIgnore;
  }

  // The basis key the logical key's columns land on (bare, or through a bijective put), if any.
  std::optional<BasisKey> provingKey(const std::vector<int>& columns, bool isPrimaryKey) const {
    const Table* table = nullptr;
    std::vector<int> basisCols;
    for (int c : columns) {
      const Term& term = terms_[c];
      const Table* owner = term.kind == TermKind::kBare ? term.source->table.get() : single_;
      if (!owner || (table && owner != table)) return std::nullopt;
      if (term.kind == TermKind::kAuthored && !isPrimaryKey && !t_.columns[c].notNull) return std::nullopt;
      table = owner;
      basisCols.push_back(term.basisColumn);
    }
    if (!table) return std::nullopt;
    for (const BasisKey& k : basisKeys(table->schema())) {
      bool covered = std::all_of(k.columns.begin(), k.columns.end(), [&](int c) {
        return std::find(basisCols.begin(), basisCols.end(), c) != basisCols.end();
      });
      if (covered) return k;
    }
    return std::nullopt;
  }

  // `constraint`: the name a commit-time scan's failure reports ("lens:pk", "lens:unique[:<name>]").
  void classifyKey(const std::vector<int>& columns, const std::string& label, const std::string& constraint,
                   bool isPrimaryKey, ast::ConflictAction onConflict, bool readOnly) {
    if (columns.empty()) return;  // a singleton: vacuous
    std::vector<std::string> names;
    for (int c : columns) names.push_back(t_.columns[c].name);
    for (int c : columns) {
      if (reconstructible(terms_[c])) continue;
      if (isPrimaryKey) return;  // the table is read-only (advised above)
      error("lens.unrealizable-constraint", label, t_.columns[c].name,
            "lens: " + label + " on '" + t_.name + "' references column '" + t_.columns[c].name +
                "', which has no write path at the lens boundary (computed or hidden lineage); the constraint can be "
                "neither proved nor enforced");
      return;
    }
    if (std::optional<BasisKey> key = provingKey(columns, isPrimaryKey)) {
      if (resolvesConflicts(onConflict) && key->onConflict != onConflict) {
        error("lens.unenforceable-conflict-action", label, std::nullopt,
              "lens: " + label + " on '" + t_.name + "' (" + quotedList(names) + ") declares ON CONFLICT " +
                  std::string(conflictName(onConflict)) + ", but the basis key that enforces it resolves conflicts by " +
                  std::string(conflictName(key->onConflict)) + "; declare the same action on the basis key");
      }
      if (key->columns.size() < columns.size()) adviseOverRestrictive(label, names);
      return;  // proved: the basis key enforces it
    }
    if (resolvesConflicts(onConflict)) {
      error("lens.unenforceable-conflict-action", label, std::nullopt,
            "lens: " + label + " on '" + t_.name + "' (" + quotedList(names) + ") declares ON CONFLICT " +
                std::string(conflictName(onConflict)) +
                ", but it enforces via a commit-time scan, which can only abort; add a basis key or covering "
                "materialized view");
      return;
    }
    if (readOnly) return;
    proof_.slot->keyScans.push_back(LensKeyScan{label, names, constraint});
    LensDiagnostic d;
    d.code = "lens.no-backing-index";
    d.constraint = label;
    d.message = "lens: " + label + " on '" + t_.name + "' (" + quotedList(names) +
                ") has no basis covering structure — it enforces via an O(n) commit-time scan. Add an explicit basis "
                "covering materialized view (order by the constraint columns) to upgrade to row-time enforcement; "
                "row-time conflict resolution (insert or replace / or ignore) requires that structure and is otherwise "
                "rejected.";
    d.fingerprint = "key:" + quotedList(names);
    d.ackTargets = names;
    d.ackTargets.push_back(label);
    std::string joined;
    for (const std::string& n : names) joined += (joined.empty() ? "" : ",") + n;
    d.ackTargets.push_back(joined);
    warn(std::move(d));
  }

  // The basis key enforcing a logical key is narrower than it: rows the logical key admits (equal
  // on the basis key's columns, different elsewhere) are refused by the basis.
  void adviseOverRestrictive(const std::string& label, const std::vector<std::string>& names) {
    LensDiagnostic d;
    d.code = "lens.over-restrictive-basis-key";
    d.constraint = label;
    d.message = "lens: " + label + " on '" + t_.name + "' (" + quotedList(names) +
                ") is enforced by a basis key over fewer columns — the basis refuses rows the logical key admits";
    d.fingerprint = "narrow:" + quotedList(names);
    d.ackTargets = names;
    d.ackTargets.push_back(label);
    warn(std::move(d));
  }

  static const char* conflictName(ast::ConflictAction a) {
    switch (a) {
      case ast::ConflictAction::kReplace: return "REPLACE";
      case ast::ConflictAction::kIgnore: return "IGNORE";
      case ast::ConflictAction::kFail: return "FAIL";
      case ast::ConflictAction::kRollback: return "ROLLBACK";
      default: return "ABORT";
    }
  }

  static std::string checkLabel(const CheckConstraint& ck) {
    return ck.name.empty() || ck.name[0] == '_' ? "check" : "check '" + ck.name + "'";
  }

  // The logical column's term over the basis row a single-source write produces (bare names).
  ast::ExprPtr basisTerm(size_t column) const {
    const Term& term = terms_[column];
    return substituteColumns(*term.rc->expr, [](const ast::Expr& col) -> ast::ExprPtr {
      auto bare = std::make_unique<ast::Expr>();
      bare->kind = ast::ExprKind::kColumn;
      bare->name = col.name;
      return bare;
    });
  }

  ast::ExprPtr toBasisTerms(const ast::Expr& e) const {
    return substituteColumns(e, [&](const ast::Expr& col) -> ast::ExprPtr {
      int c = t_.findColumn(col.name);
      return c < 0 ? nullptr : basisTerm(static_cast<size_t>(c));
    });
  }

  // The basis table whose written row holds every logical column in `columns` as a bare column:
  // the body's one table, else the one join or decomposition member backing them all (a table
  // the body reads twice never is: its two rows are different rows). Null: none.
  const Table* memberOf(const std::vector<size_t>& columns) const {
    if (single_) return single_;
    const Table* member = nullptr;
    for (size_t c : columns) {
      const Term& term = terms_[c];
      if (term.kind != TermKind::kBare || !term.source) return nullptr;
      const Table* t = term.source->table.get();
      if (member && member != t) return nullptr;
      member = t;
    }
    size_t reads = 0;
    for (const LensSource& src : body_.sources) reads += src.table.get() == member ? 1 : 0;
    return reads == 1 ? member : nullptr;
  }

  // A rule over the logical `columns`, enforced on the writes of the basis table backing them all;
  // none when no one table does (a rule across the members of a join is not enforced row-locally).
  LensRowRule* addRule(ast::ExprPtr rule, std::string message, const std::vector<size_t>& columns,
                       bool foreignKey = false) {
    const Table* member = memberOf(columns);
    if (!member) return nullptr;
    std::shared_ptr<const ast::Expr> kept(std::move(rule));
    proof_.slot->rowRules.push_back(LensRowRule{kept.get(), std::move(message), member->schema().name, foreignKey});
    proof_.slot->keepAlive.push_back(std::move(kept));
    return &proof_.slot->rowRules.back();
  }

  std::vector<size_t> logicalColumns(const ast::Expr& e) const {
    std::vector<size_t> out;
    for (const std::string& ref : columnNames(e)) {
      int c = t_.findColumn(ref);
      if (c >= 0) out.push_back(static_cast<size_t>(c));
    }
    return out;
  }

  // Logical column `column`'s term over the written row image `image` ("new" / "old"), as text.
  std::string rowTerm(size_t column, const char* image) const {
    ast::ExprPtr term = substituteColumns(*basisTerm(column), [&](const ast::Expr& col) {
      auto e = std::make_unique<ast::Expr>();
      e->kind = ast::ExprKind::kColumn;
      e->table = image;
      e->name = col.name;
      return e;
    });
    return "(" + printExpr(*term) + ")";
  }

  // The parent side of every logical FOREIGN KEY that references this table: with RESTRICT a
  // delete, or an update changing the referenced key, fails while a logical child row still
  // references the row's key (read through the child's lens view); ON DELETE CASCADE / SET NULL
  // become the slot's delete actions.
  void addParentRestrictRules() {
    for (const auto& [name, child] : siblings_) {
      for (const ForeignKey& fk : child->foreignKeys) {
        if (lowerName(fk.parentTable) != lowerName(t_.name)) continue;
        std::vector<int> parentCols;
        for (const std::string& c : fk.parentColumns) parentCols.push_back(t_.findColumn(c));
        if (fk.parentColumns.empty()) {
          for (const KeyColumn& k : t_.primaryKey) parentCols.push_back(k.column);
        }
        if (parentCols.size() != fk.columns.size() ||
            std::find(parentCols.begin(), parentCols.end(), -1) != parentCols.end()) {
          continue;
        }
        std::string match, same, cols;
        for (size_t i = 0; i < parentCols.size(); ++i) {
          size_t pc = static_cast<size_t>(parentCols[i]);
          match += std::string(i ? " and " : "") + "__lens_child." + printIdent(child->columns[fk.columns[i]].name) +
                   " = " + rowTerm(pc, "old");
          same += std::string(i ? " and " : "") + rowTerm(pc, "new") + " = " + rowTerm(pc, "old");
          cols += std::string(i ? ", " : "") + child->columns[fk.columns[i]].name;
        }
        std::string referenced = "not exists (select 1 from " + printIdent(lowerName(schema_)) + "." +
                                 printIdent(child->name) + " as __lens_child where " + match + ")";
        std::string message = "FOREIGN KEY constraint failed: " + t_.name + " is still referenced by " + child->name +
                              " (" + cols + ")";
        if (fk.onDelete == FkAction::kCascade || fk.onDelete == FkAction::kSetNull) {
          LensDeleteAction a{child->name, {}, {}, fk.onDelete == FkAction::kSetNull};
          for (size_t i = 0; i < parentCols.size(); ++i) {
            a.childColumns.push_back(child->columns[fk.columns[i]].name);
            a.parentColumns.push_back(t_.columns[parentCols[i]].name);
          }
          proof_.slot->deleteActions.push_back(std::move(a));
        }
        std::vector<size_t> keyColumns(parentCols.begin(), parentCols.end());
        if (fk.onDelete == FkAction::kRestrict) {
          if (LensRowRule* r = addRule(parseExpression(referenced), message, keyColumns, true)) {
            r->onInsert = r->onUpdate = false;
            r->onDelete = true;
          }
        }
        if (fk.onUpdate == FkAction::kRestrict) {
          if (LensRowRule* r = addRule(parseExpression("(" + same + ") or " + referenced), message, keyColumns, true)) {
            r->onInsert = false;
          }
        }
      }
    }
  }

  // A child-side FOREIGN KEY of the logical table: the written row's key (in basis terms, read as
  // `new.<column>`) is NULL in some part, or the logical parent has a row with it.
  void addForeignKeyRule(const ForeignKey& fk) {
    auto parent = siblings_.find(lowerName(fk.parentTable));
    if (parent == siblings_.end() || (!fk.parentSchema.empty() && fk.parentSchema != lowerName(schema_))) return;
    const TableSchema& p = *parent->second;
    std::vector<std::string> parentCols = fk.parentColumns;
    if (parentCols.empty()) {
      for (const KeyColumn& k : p.primaryKey) parentCols.push_back(p.columns[k.column].name);
    }
    if (parentCols.size() != fk.columns.size()) return;
    std::string nulls, match, cols;
    for (size_t i = 0; i < fk.columns.size(); ++i) {
      std::string value = rowTerm(static_cast<size_t>(fk.columns[i]), "new");
      nulls += value + " is null or ";
      match += std::string(i ? " and " : "") + "__lens_parent." + printIdent(parentCols[i]) + " = " + value;
      cols += std::string(i ? ", " : "") + t_.columns[fk.columns[i]].name;
    }
    std::string sql = nulls + "exists (select 1 from " + printIdent(lowerName(schema_)) + "." + printIdent(p.name) +
                      " as __lens_parent where " + match + ")";
    std::vector<size_t> childColumns(fk.columns.begin(), fk.columns.end());
    addRule(parseExpression(sql), "FOREIGN KEY constraint failed: " + t_.name + " (" + cols + ") references a missing " +
                                      schema_ + "." + p.name, childColumns, true);
  }

  void classifyCheck(const CheckConstraint& ck) {
    std::string label = checkLabel(ck);
    for (const std::string& ref : columnNames(*ck.expr)) {
      const Term* term = termOf(ref);
      if (!term) continue;
      bool computed = term->kind == TermKind::kComputed || term->kind == TermKind::kOffset;
      if (!computed && !(term->kind == TermKind::kAuthored && !single_)) continue;
      error("lens.unrealizable-constraint", label, t_.columns[t_.findColumn(ref)].name,
            "lens: " + label + " on '" + t_.name + "' references column '" + t_.columns[t_.findColumn(ref)].name +
                "', which has computed or hidden lineage (no write path); a check over it cannot be enforced at the "
                "lens boundary");
      return;
    }
    if (holdsSubquery(*ck.expr)) return;
    addRule(toBasisTerms(*ck.expr), "CHECK constraint failed: lens:" + ck.name, logicalColumns(*ck.expr));
  }

  void classifyConstraints(bool readOnly) {
    std::vector<int> pk;
    for (const KeyColumn& k : t_.primaryKey) pk.push_back(k.column);
    classifyKey(pk, "primary key", "lens:pk", true, t_.pkConflict, readOnly);
    for (const IndexSchema& ix : t_.indexes) {
      if (!ix.unique) continue;
      std::vector<int> cols;
      for (const KeyColumn& k : ix.columns) cols.push_back(k.column);
      bool named = !ix.constraintName.empty() && ix.constraintName[0] != '_';
      classifyKey(cols, named ? "unique '" + ix.constraintName + "'" : "unique",
                  named ? "lens:unique:" + ix.constraintName : "lens:unique", false, ix.onConflict, readOnly);
    }
    for (const CheckConstraint& ck : t_.checks) classifyCheck(ck);
    for (const ForeignKey& fk : t_.foreignKeys) addForeignKeyRule(fk);
    addParentRestrictRules();
    for (size_t i = 0; i < t_.columns.size(); ++i) {
      if (!t_.columns[i].notNull || terms_[i].kind == TermKind::kComputed) continue;
      auto test = std::make_unique<ast::Expr>();
      test->kind = ast::ExprKind::kIsNull;
      test->negated = true;
      test->args.push_back(basisTerm(i));
      addRule(std::move(test), "NOT NULL constraint failed: " + t_.name + "." + t_.columns[i].name, {i});
    }
  }

  // `quereus.lens.access.<col>` declares an expected lookup: advised when no basis key or index
  // of the body's one source leads with the column's basis column (reads would scan).
  void adviseAccessPatterns() {
    const std::string prefix = "quereus.lens.access.";
    for (const ast::Tag& tag : t_.tags) {
      if (lowerName(tag.key).rfind(prefix, 0) != 0) continue;
      std::string col = tag.key.substr(prefix.size());
      if (servesAccess(col)) continue;
      LensDiagnostic d;
      d.code = "lens.no-answering-structure";
      d.column = col;
      d.message = "lens: declared access pattern '" + tag.key + "' on '" + t_.name +
                  "' has no answering basis ordering or index — reads on '" + col +
                  "' will scan. Add a basis index/covering materialized view ordered by '" + col + "'.";
      d.fingerprint = "access:" + lowerName(col);
      d.ackTargets = {col};
      warn(std::move(d));
    }
  }

  bool servesAccess(const std::string& column) const {
    const Term* term = termOf(column);
    if (!single_ || !term || term->kind != TermKind::kBare) return false;
    const TableSchema& b = single_->schema();
    if (!b.primaryKey.empty() && b.primaryKey.front().column == term->basisColumn) return true;
    return std::any_of(b.indexes.begin(), b.indexes.end(), [&](const IndexSchema& ix) {
      return !ix.columns.empty() && ix.columns.front().column == term->basisColumn;
    });
  }

  void advisePartialOverride() {
    if (!body_.fromOverride) return;
    std::vector<std::string> authored, filled;
    for (const LensBodyColumn& c : body_.columns) (c.fromOverride ? authored : filled).push_back(c.name);
    if (authored.empty() || filled.empty()) return;
    LensDiagnostic d;
    d.code = "lens.partial-override";
    d.message = "lens: '" + t_.name + "' is a partial override — override-authored column(s): " + quotedList(authored) +
                "; default gap-filled column(s): " + quotedList(filled);
    d.fingerprint = "partial:" + quotedList(filled);
    warn(std::move(d));
  }

  void fillSlot(bool readOnly) {
    LensSlot& s = *proof_.slot;
    s.readOnly = readOnly;
    std::string sql = printSelect(*body_.select);
    for (size_t i = 0; i < terms_.size(); ++i) {
      const LensBodyColumn& bc = body_.columns[i];
      const char* inverse = terms_[i].kind == TermKind::kAuthored ? "authored"
                            : terms_[i].kind == TermKind::kComputed ? "none" : "inferred";
      s.columns.push_back(LensColumn{bc.name, bc.fromOverride ? "override" : "default", inverse, bc.member, bc.anchor, sql});
    }
  }

  Context& ctx_;
  std::string schema_;
  const TableSchema& t_;
  const CompiledLensBody& body_;
  const LogicalTables& siblings_;
  const Table* single_ = nullptr;
  std::vector<Term> terms_;
  LensProof proof_;
};

}  // namespace

LensProof proveLens(Context& ctx, const std::string& logicalSchema, const TableSchema& logical, const CompiledLensBody& body,
                    const LogicalTables& siblings) {
  return Prover(ctx, logicalSchema, logical, body, siblings).run();
}

}  // namespace optic
