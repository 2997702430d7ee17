// DML binding: INSERT, UPDATE and DELETE from the AST to the executors of core/execution/dml.h.
//
// Binding resolves the target and checks the statement's static rules (target columns, SET
// list, conflict clauses, RETURNING qualifiers, the mutation context a DEFAULT or CHECK reads),
// then binds everything the write path evaluates: the source query, the rows UPDATE and DELETE
// select, the SET list, the ON CONFLICT arms, RETURNING, the mutation-context values and the
// target's rules (the DEFAULTs the statement can run, generated columns, CHECKs, partial-index
// predicates). A target that is a view, a CTE name of the statement's WITH or an inline
// subquery routes to the write-through lowering (views/view_mutation.h), which rewrites the
// statement into base-table statements and binds each of them here again: recursion inside the
// planner.
//
// Invariants: a statement is bound completely before its plan exists, so a refused statement
// changes nothing; the executors receive bound pieces only and never bind. Execution needs no
// binding callback: a write evaluates no expression of any table but its target (foreign-key
// actions write child rows as they are, dml.h). The one expression bound after its statement is
// a deferred CHECK, run at COMMIT, whose caller binds it with bindCheck against the catalog
// COMMIT sees.
#pragma once

#include <memory>

#include "core/execution/dml.h"
#include "core/parser/ast.h"
#include "core/planner/binder.h"

namespace optic {

std::unique_ptr<DmlPlan> bindInsert(Binder& binder, const ast::Insert& insert,
                                    DefaultTiming timing = DefaultTiming::kPerRow);
std::unique_ptr<DmlPlan> bindUpdate(Binder& binder, const ast::Update& update);
std::unique_ptr<DmlPlan> bindDelete(Binder& binder, const ast::Delete& del);

// A CHECK of `t`, bound as a statement writing `t` binds it (the `check` of checkDeferredCheck).
BoundExprPtr bindCheck(Binder& binder, const TableSchema& t, const CheckConstraint& ck);

}  // namespace optic
