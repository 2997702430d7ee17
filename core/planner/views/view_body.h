// ViewBody: what a single-source view body (a projection and filter over one FROM source)
// exposes to a write through it (views.md §2.1, §2.3, §2.4, §2.7).
//
// analyseSingleSource() classifies every output column — passthrough/rename (bare column,
// COLLATE, same-type CAST), registry-invertible (nested `± literal`), authored inverse
// (`with inverse (…)`), or computed (read-only) — and collects the constant pins of the body's
// WHERE. It throws the catalogue's MutationError for every body shape that is never writable
// (aggregate, window, DISTINCT, LIMIT/OFFSET, VALUES, set operations, recursive CTE, no FROM).
// isJoinBody() tells the caller to take the multi-source path instead.
//
// Invariant: every pointer in a SingleSource points into the target's body AST.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/parser/ast.h"
#include "core/planner/write_target.h"

namespace optic {

class Binder;

enum class ColumnClass : uint8_t { kPassthrough, kInvertible, kAuthored, kComputed };

// One `± literal` layer of an invertible column, outermost first.
struct InverseStep {
  bool plus = true;                   // `c + k` / `k + c` (true) or `c - k` / `k - c`
  bool literalFirst = false;          // `k - c`
  const ast::Expr* literal = nullptr;
};

struct BodyColumn {
  std::string name;                   // the view's name for the column
  ColumnClass kind = ColumnClass::kComputed;
  std::string baseColumn;             // passthrough / invertible: the source column written
  const ast::Expr* expr = nullptr;    // the forward expression; null for a `*`-expanded column
  const ast::Expr* baseRef = nullptr; // passthrough / invertible: the column reference written
  std::vector<InverseStep> steps;     // invertible
  const ast::ResultColumn* authored = nullptr;  // kAuthored: the column with `with inverse`
};

struct BodyPin {                      // `where col = literal` (also `in (k)`, `>= k and <= k`)
  std::string baseColumn;
  const ast::Expr* value = nullptr;
};

struct SingleSource {
  const ast::FromItem* source = nullptr;  // kTable (table, view or CTE) or kSubquery
  std::string qualifier;                  // the source's alias, else its table name
  std::vector<std::string> sourceColumns; // the source's column names, in order
  std::vector<BodyColumn> columns;
  std::vector<BodyPin> pins;
  const ast::Expr* where = nullptr;       // the body's selection predicate
};

// Names the source column a column reference reads ("" when it reads none).
using BaseResolver = std::function<std::string(const ast::Expr& columnRef)>;
// Fills kind / baseColumn / baseRef / steps of `col` from its forward expression `e`.
void classifyColumn(const ast::Expr& e, const BaseResolver& baseOf, BodyColumn& col);

// The name a body's result column has in the view (alias, column name, or printed expression).
std::string resultColumnName(const ast::ResultColumn& rc);

// The prefix of most diagnostics: "cannot write through view '<v>': ".
std::string cannotWrite(const WriteTarget& t);

bool isJoinBody(const ast::Select& body);
// Throws for shapes no write can go through; `op` is "insert" / "update" / "delete".
void rejectUnwritableShape(Binder& binder, const WriteTarget& t, const char* op);
SingleSource analyseSingleSource(Binder& binder, const WriteTarget& t, const char* op);

// The view column named `name` (case-insensitive), or null.
const BodyColumn* findBodyColumn(const SingleSource& s, const std::string& name);

}  // namespace optic
