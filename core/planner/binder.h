// Binder: resolves an AST query against the catalog and builds its executable plan.
//
// It resolves names (search path, aliases, CTEs, views inlined as subqueries), checks the
// dialect's static rules (strict GROUP BY, comma joins rejected, collation conflicts), types
// expressions, and wires physical operators (operators.h). Each table's access path (primary
// key or secondary index, points, ranges, order) comes from access_path.h; equi-joins become
// hash joins.
//
// Scopes: each query level has a Scope listing the columns of its current row; a Scope's parent
// is the enclosing query's, so a correlated reference binds as (depth, index).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/expression.h"
#include "core/execution/operator.h"
#include "core/parser/ast.h"

namespace optic {

struct LensRowRule;  // core/catalog/lens.h

class Context;
class ReadRecorder;  // core/planner/change_scope.h
class DmlSource;     // core/planner/dml_source.h

struct ScopeColumn {
  std::string table;   // alias or table name qualifying the column ("" for none)
  std::string name;
  LogicalType type = LogicalType::kAny;
  Collation collation = Collation::kBinary;
  int collationRank = 0;
  bool hidden = false;  // resolvable only when qualified, never expanded by `*` (new.*, old.*)
  bool claimsBareName = false;  // wins an unqualified name over same-named columns (context.*)
  // The row of a DEFAULT or CHECK under its table's name: inside a subquery whose own sources
  // have a column of the same name, `t.col` names no column (the reference implementation strips
  // the qualifier, and the bare name would be captured), so it is refused rather than guessed.
  bool ruleRow = false;
  // A base-table column: the reference's index in the binder's ReadRecorder (change scope) and
  // the column's index in the table; -1 for anything else.
  int read = -1;
  int baseColumn = -1;
};

struct Scope {
  std::vector<ScopeColumn> columns;
  const Scope* parent = nullptr;
  // Select-list aliases of a grouped level that name one of its columns (a grouping key or an
  // aggregate): the lowest-precedence names of the level, reached by its correlated subqueries.
  std::vector<std::pair<std::string, int>> aliases;
  // For a grouped level's output scope: the level's input scope, so a correlated reference to a
  // column that is not a grouping key reports the GROUP BY rule rather than "not found".
  const Scope* ungrouped = nullptr;
  // For a grouped level's output scope: the fingerprints of its grouping keys (columns 0..n-1),
  // so an expression of a correlated subquery spelled as a key reads the group's value.
  std::vector<std::string> keyTexts;
};

// A base-table column as a scope column named by `qualifier` (its type and collation rank).
ScopeColumn scopeColumnOf(const ColumnSchema& c, const std::string& qualifier);

struct AccessRequest;  // core/planner/access_path.h
struct ScanProjection;  // core/execution/operators.h

// A bound query: its operator tree and output columns.
struct QueryPlan {
  OperatorPtr root;
  std::vector<OutputColumn> columns;
  std::vector<std::string> sourceTables;  // "schema.table" of every base table read
};

// A CTE visible to the query being bound. While a recursive CTE's step is bound, references to
// the CTE read `working`, the rows of the previous iteration.
struct CteBinding {
  const ast::CommonTableExpr* cte = nullptr;
  bool recursive = false;
  std::shared_ptr<std::vector<Row>> working;
  std::vector<OutputColumn> workingColumns;
  size_t frame = 0;
  std::shared_ptr<DmlSource> dml;  // a data-modifying member, bound when its WITH is pushed
  size_t index = 0;  // position in its WITH clause (CteBodyScope hides the later siblings)
};

class Binder {
 public:
  explicit Binder(Context& ctx);
  ~Binder();

  QueryPlan bindQuery(const ast::Select& select, const Scope* outer);
  // Expressions over a given scope (DML WHERE / SET / CHECK / DEFAULT).
  BoundExprPtr bindScalar(const ast::Expr& e, const Scope& scope);
  // The WHERE filter over `input` (a SELECT's or a DML target's), leaving out the conjuncts its
  // scan answers exactly (AccessRequest::enforced); `input` alone when that is all of them.
  OperatorPtr filterOf(OperatorPtr input, const ast::Expr& where, const std::vector<const ast::Expr*>& enforced,
                       const Scope& scope);
  // A relation used as a DML source or FROM item.
  int parameterCount() const { return maxParam_; }
  const std::vector<std::string>& parameterNames() const { return paramNames_; }
  // Registers the leading WITH of a DML statement so its body can reference the CTEs. Its
  // data-modifying members are bound here, in clause order (each sees earlier siblings only).
  void pushWith(const ast::WithClause* with);
  // A DML statement used as a relation (FROM item, INSERT source): it must have RETURNING; the
  // plan replays its rows, and the write becomes one of the statement's effects.
  QueryPlan bindDmlRelation(const ast::Statement& dml, const ast::SourcePos& pos);
  // The writes the statement runs before its main body, in order (dml_source.h).
  const std::vector<std::shared_ptr<DmlSource>>& effects() const { return effects_; }
  // Registers `name` as a relation whose rows are filled into `rows` at execution time (the keys
  // a write through a join view captures before its base writes); undone by popWith().
  void pushRowSource(const std::string& name, std::shared_ptr<std::vector<Row>> rows,
                     std::vector<OutputColumn> columns);
  void popWith();
  // pushWith(with) for the lifetime of the guard when `with` is set (a DML statement's or a
  // recursive CTE body's own WITH).
  class WithScope {
   public:
    WithScope(Binder& b, const ast::WithClause* with) : binder_(b), on_(with != nullptr) {
      if (on_) binder_.pushWith(with);
    }
    ~WithScope() {
      if (on_) binder_.popWith();
    }
    WithScope(const WithScope&) = delete;
    WithScope& operator=(const WithScope&) = delete;

   private:
    Binder& binder_;
    bool on_;
  };
  // Default schema for unqualified names inside a stored body (view/MV), "" = search path.
  void setHomeSchema(std::string schema) { homeSchema_ = std::move(schema); }
  const std::string& homeSchema() const { return homeSchema_; }
  std::string resolveTableSchema(const ast::QualifiedName& name, bool allowViews = true) const;
  // A statement's `with schema a, b` (sql-core.md §7): replaces the session search path for
  // unqualified names while alive; an empty list leaves the path as it is.
  class SchemaPathScope {
   public:
    SchemaPathScope(Binder& b, const std::vector<std::string>& path) : binder_(b), saved_(b.statementPath_) {
      if (!path.empty()) {
        binder_.statementPath_.clear();
        for (const std::string& s : path) binder_.statementPath_.push_back(lowerName(s));
      }
    }
    ~SchemaPathScope() { binder_.statementPath_ = std::move(saved_); }
    SchemaPathScope(const SchemaPathScope&) = delete;
    SchemaPathScope& operator=(const SchemaPathScope&) = delete;

   private:
    Binder& binder_;
    std::vector<std::string> saved_;
  };

  Context& ctx() { return ctx_; }

  // While alive, none of the statement's CTEs is visible: a table's own DDL expressions
  // (DEFAULT, CHECK, generated columns) and a view's body name real schema objects, whatever
  // the statement calls its CTEs. Their own WITH clauses still bind inside.
  class CteIsolation;
  // While alive, the CTEs visible are those a member's body (one without a recursive step) may
  // read: the frames enclosing its WITH and its siblings declared before it — all its siblings
  // under `with recursive` — never itself, so `with t as (select … from t)` reads the real table t.
  class CteBodyScope;
  // What the statement reads, for its change scope (filled while binding).
  ReadRecorder& reads() { return *reads_; }

  // The row-local rules of a lens boundary (views.md §4.3) that the writes of base tables in
  // `schema` bound next must enforce besides each table's own rules (each rule names its basis
  // table); set while a write through a lens is lowered (planner/views/lens_boundary.h).
  struct BoundaryRules {
    std::string schema;  // lower-case
    const std::vector<LensRowRule>* rules = nullptr;
  };
  const BoundaryRules* boundaryRulesFor(const TableSchema& t) const {
    return boundary_ && boundary_->schema == t.schemaName ? &*boundary_ : nullptr;
  }
  std::optional<BoundaryRules> swapBoundaryRules(std::optional<BoundaryRules> r) {
    std::swap(r, boundary_);
    return r;
  }

 private:
  std::optional<BoundaryRules> boundary_;
  friend class ExprBinder;
  struct Source {
    OperatorPtr op;
    std::vector<ScopeColumn> columns;
  };
  struct SelectParts;

  QueryPlan bindCore(const ast::Select& s, const Scope* outer);
  QueryPlan bindValues(const ast::Select& s, const Scope* outer);
  QueryPlan bindCompound(const ast::Select& s, const Scope* outer);
  QueryPlan applyOrderLimit(QueryPlan plan, const ast::Select& s, const Scope* outer);
  // `where` and `request` reach a single table's access path (null inside joins).
  Source bindFrom(const ast::FromItem& item, const Scope* outer, const ast::Expr* where, AccessRequest* request);
  Source bindTableRef(const ast::FromItem& item, const Scope* outer, const ast::Expr* where, AccessRequest* request);
  // `request`, when given, gets the join's estimated rows (nothing else of it applies).
  Source bindJoin(const ast::FromItem& item, const Scope* outer, const ast::Expr* where, AccessRequest* request);
  // The base table a join side names (not a view, a CTE or `committed.`), or null.
  std::shared_ptr<Table> joinableTable(const ast::FromItem& side);
  // Whether an inner join of two base tables reads far fewer rows with its right side driving
  // (join_cost.h: swapPays), from dry runs of both sides' access paths (join_order.cpp).
  bool joinSidesSwap(const ast::FromItem& join, const Scope* outer, const ast::Expr* where);
  static void restoreWrittenOrder(Source& join, size_t firstWidth);
  // A copy of `body` (a view's, a CTE's or a FROM subquery's query, named `qualifier` with the
  // column names `names`, empty: the body's own) whose WHERE also holds the conjuncts of the
  // enclosing `where` that read only its columns, rewritten over the body; null when none can
  // go in (pushdown.cpp).
  std::unique_ptr<ast::Select> pushDown(const ast::Select& body, const std::vector<std::string>& names,
                                        const std::string& qualifier, const ast::Expr* where);
  // Binds a derived source's body with pushDown's conjuncts in it; as written when none can go
  // in, or when the pushed copy fails to bind (the enclosing level then reports the error where
  // it was written).
  QueryPlan bindDerived(const ast::Select& body, const std::vector<std::string>& names, const std::string& qualifier,
                        const ast::Expr* where, const Scope* outer);
  std::vector<std::unique_ptr<ast::Select>> pushedBodies_;  // pushDown's copies, kept while binding
  static void exposeExistenceFlags(Source& join, size_t leftCols, size_t rightCols, size_t leftWidth,
                                   const std::string& leftFlag, const std::string& rightFlag);
  Source planFromQuery(QueryPlan plan, const std::string& alias, const std::vector<std::string>& aliases);
  const CteBinding* findCte(const std::string& name) const;
  std::shared_ptr<DmlSource> bindDmlSource(const ast::Statement& dml, const ast::SourcePos& pos);
  int paramSlot(const ast::Expr& e);

  Context& ctx_;
  using CteFrames = std::vector<std::map<std::string, std::shared_ptr<CteBinding>>>;
  // Restores the visible CTEs when it goes out of scope.
  class SavedCtes {
   public:
    explicit SavedCtes(Binder& b) : binder_(b), saved_(b.ctes_) {}
    ~SavedCtes() { binder_.ctes_ = std::move(saved_); }
    SavedCtes(const SavedCtes&) = delete;
    SavedCtes& operator=(const SavedCtes&) = delete;

   protected:
    Binder& binder_;

   private:
    CteFrames saved_;
  };
  // Scans narrowed to the columns their query level reads once it is bound (bindCore decides
  // from the columns the reads recorded).
  struct ProjectableScan {
    std::shared_ptr<ScanProjection> projection;
    std::shared_ptr<Table> table;
    int read;
  };
  std::vector<ProjectableScan> projectable_;
  void projectScansFrom(size_t first);
  CteFrames ctes_;
  std::string homeSchema_;
  std::vector<std::string> statementPath_;  // `with schema …`; empty = the session path
  int maxParam_ = 0;
  int nextAnon_ = 0;
  std::vector<std::string> paramNames_;  // index = slot-1; "" for positional
  int viewDepth_ = 0;
  std::unique_ptr<ReadRecorder> reads_;
  int queryDepth_ = 0;  // nesting of bindQuery: data-modifying CTEs only at depth 0
  // Each DML relation is bound once per statement, keyed by its AST (a re-bound or cloned
  // WITH clause maps to the same source, so its write still runs once).
  std::map<const ast::Statement*, std::shared_ptr<DmlSource>> dmlSources_;
  std::vector<std::shared_ptr<DmlSource>> effects_;
};

class Binder::CteIsolation : private Binder::SavedCtes {
 public:
  explicit CteIsolation(Binder& b) : SavedCtes(b) { b.ctes_.clear(); }
};

class Binder::CteBodyScope : private Binder::SavedCtes {
 public:
  CteBodyScope(Binder& b, const CteBinding& member);
};

}  // namespace optic
