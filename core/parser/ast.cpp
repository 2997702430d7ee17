// AST out-of-line members: constructors/destructors of the recursive nodes.
//
// They live here because Expr, Select, FromItem and Statement hold unique_ptrs to types that
// are incomplete at their declaration (WindowSpec, OrderingTerm, Insert, …).
#include "core/parser/ast.h"

namespace optic::ast {

Expr::Expr() = default;
Expr::~Expr() = default;
Select::Select() = default;
Select::~Select() = default;
FromItem::FromItem() = default;
FromItem::~FromItem() = default;
Statement::Statement() = default;
Statement::~Statement() = default;

}  // namespace optic::ast
