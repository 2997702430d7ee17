// Writes through set-operation bodies (views.md §2.6).
//
// A view row is identified by its data values; which branch (leg) it is a row of is read
// from membership flags (`A union exists left as inA, exists right as inB B`), or, for a
// flag-less body, from flags the capture adds itself. UPDATE and DELETE capture first: one
// query over the view (user WHERE) yields every affected row's data, its flags and its new data
// values, before any base write runs. Each leg then gets an ordinary write through the leg's
// own body (single-source or join, so the leg's machinery applies unchanged) addressing the
// captured rows it holds by their data values:
//   - a data UPDATE and a DELETE fan out to every leg the row is in;
//   - `set inB = false` deletes the row from leg B, `set inB = true` inserts it (with the new
//     data values) into leg B when it is not there.
// INSERT (VALUES source) routes each row: by the flags the statement supplies (boolean
// literals, the same on every row); for a flag-less `union all`, to the legs whose literal
// discriminator columns the row matches; for `intersect`, to both legs; for `except`, to the
// left leg, removing the row from the right one (as an `except` UPDATE does with its new
// values). `diff` bodies, a plain `union` without flags, an undiscriminated `union all`, nested
// set operations and bodies flagging one side only are rejected.
//
// Invariant: execution sees base-table statements only; the capture is a row source the
// binder reads at execution time.
#pragma once

#include <memory>

#include "core/execution/dml.h"
#include "core/parser/ast.h"
#include "core/planner/write_target.h"

namespace optic {

class Binder;
class Context;

// True when `body` is a set operation naming a membership flag.
bool isMembershipBody(const ast::Select& body);

// What view_info() reports for a stored view with a membership body: whether an INSERT, an
// UPDATE of some data column and a DELETE through it would plan (the static surface then
// matches the dynamic write exactly).
struct MembershipWritability {
  bool insertable = false, updatable = false, deletable = false;
};
MembershipWritability probeMembershipWrites(Context& ctx, const ast::QualifiedName& view, const ast::Select& body,
                                            const std::vector<std::string>& columnNames);

std::unique_ptr<DmlPlan> bindSetOpUpdate(Binder& binder, const ast::Update& up, const WriteTarget& t);
std::unique_ptr<DmlPlan> bindSetOpDelete(Binder& binder, const ast::Delete& del, const WriteTarget& t);
std::unique_ptr<DmlPlan> bindSetOpInsert(Binder& binder, const ast::Insert& ins, const WriteTarget& t);

}  // namespace optic
