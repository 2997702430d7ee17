// Lens bodies (views.md §4.2): the `get` of one logical table, compiled to an ordinary SELECT over
// the basis schema.
//
// Three producers, tried in order:
// - an override (`declare lens for L over B { view T as select … }`): a sparse patch keyed by
//   output name. Its terms give the columns it covers (`override`); every other logical column is
//   gap-filled by name from the override's FROM sources (`default`). The override must be one
//   SELECT (no compound, no VALUES) whose FROM tables live in B; computed terms must be aliased.
// - a decomposition advertised by the basis tables' `quereus.lens.decomp.*` tags: the anchor
//   member, mandatory members inner-joined and optional ones left-joined on the shared key, each
//   logical column taken from the member that maps it (else by name, anchor first).
// - the default mapper: the basis table of the same name, each column by name.
// A logical column nothing backs fails: "lens: logical column 'L.T.c' has no basis backing".
//
// Invariants: the body lists exactly the logical columns, in declaration order, each aliased to
// its logical name; every FROM table is qualified with its basis schema; the result owns its AST.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

// One FROM table of a compiled body.
struct LensSource {
  std::string ref;                // the name its columns are qualified by (alias or table name)
  std::shared_ptr<Table> table;
  bool optional = false;          // the non-preserved side of a left join: its columns may be NULL
};

struct LensBodyColumn {
  std::string name;               // the logical column
  bool fromOverride = false;
  std::optional<std::string> member;  // advertised decomposition member
  std::optional<std::string> anchor;
};

struct CompiledLensBody {
  std::shared_ptr<ast::Select> select;  // columns[i] is logical column i
  std::vector<LensBodyColumn> columns;
  std::vector<LensSource> sources;
  bool fromOverride = false;
};

// `logical`: the logical table (its columns in order); `override`: the lens's view item for it,
// or null. `basis` is the lower-case basis schema name.
CompiledLensBody compileLensBody(Context& ctx, const std::string& logicalSchema, const TableSchema& logical,
                                 const std::string& basis, const ast::CreateView* override);

// The FROM source a body term's bare column reference reads, and the column's index in it; a
// term that is not a plain column reference (or does not resolve) gives {nullptr, -1}.
std::pair<const LensSource*, int> bareColumnSource(const CompiledLensBody& body, const ast::Expr& term);

}  // namespace optic
