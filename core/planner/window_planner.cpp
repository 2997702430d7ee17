// Window planning: turns the OVER (…) calls of one SELECT core into a WindowOp.
//
// Each call is validated (unsupported forms raise the corpus's messages), its arguments, PARTITION
// BY and ORDER BY are bound over the input scope (through the aggregate slots when grouped), and
// calls whose PARTITION BY + ORDER BY print identically share one WindowDef. The first call's
// window is WindowDef 0, so its order is the output order (window_planner.h).
#include "core/planner/window_planner.h"

#include <algorithm>
#include <string>

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/execution/window_op.h"
#include "core/parser/printer.h"

namespace optic {

namespace {

[[noreturn]] void failAt(const std::string& msg, const ast::SourcePos& pos) {
  throw Error(ErrorCode::kError, msg, pos.line, pos.column);
}

struct BuiltinWindowFn {
  const char* name;
  WindowFnKind kind;
  int minArgs, maxArgs;
  bool ranksPeers;  // its value is defined by ORDER BY peers: without an ORDER BY it means nothing
};

constexpr BuiltinWindowFn kBuiltins[] = {
    {"row_number", WindowFnKind::kRowNumber, 0, 0, false},   {"rank", WindowFnKind::kRank, 0, 0, true},
    {"dense_rank", WindowFnKind::kDenseRank, 0, 0, true},    {"percent_rank", WindowFnKind::kPercentRank, 0, 0, true},
    {"cume_dist", WindowFnKind::kCumeDist, 0, 0, true},      {"ntile", WindowFnKind::kNtile, 1, 1, false},
    {"lag", WindowFnKind::kLag, 1, 3, false},                {"lead", WindowFnKind::kLead, 1, 3, false},
    {"first_value", WindowFnKind::kFirstValue, 1, 1, false}, {"last_value", WindowFnKind::kLastValue, 1, 1, false},
};

// The reference's wording for a window call with the wrong number of arguments: a fixed-arity
// function names the count it expects; lag/lead (variadic there) need their expression.
std::string arityMessage(const std::string& written, const BuiltinWindowFn& b, int n) {
  if (b.minArgs == b.maxArgs) {
    return "Window function " + written + " expects " + std::to_string(b.minArgs) + " arguments, got " +
           std::to_string(n);
  }
  if (n < b.minArgs) return written + " requires at least one argument";
  return "wrong number of arguments to function " + lowerName(written) + "()";
}

// Aggregates registered for plain aggregation only (the reference rejects their OVER form).
bool aggregateOnly(const std::string& name) { return name == "json_group_array" || name == "json_group_object"; }

// Resolves the function of a window call: a built-in window function or a window-capable aggregate.
void resolveFunction(const ast::Expr& e, const Context& ctx, WindowCall& call) {
  std::string name = lowerName(e.name);
  int n = e.star ? 0 : static_cast<int>(e.args.size());
  for (const BuiltinWindowFn& b : kBuiltins) {
    if (name != b.name) continue;
    if (n < b.minArgs || n > b.maxArgs) failAt(arityMessage(e.name, b, n), e.pos);
    if (b.ranksPeers && e.window && e.window->baseName.empty() && e.window->orderBy.empty()) {
      failAt(name + "() requires ORDER BY clause in its window", e.pos);
    }
    call.kind = b.kind;
    return;
  }
  const AggregateFunction* fn = aggregateOnly(name) ? nullptr : ctx.functions().findAggregate(name, n);
  if (!fn) failAt("Unknown window function: " + name, e.pos);
  call.kind = WindowFnKind::kAggregate;
  call.fn = fn;
  call.distinct = e.distinct;
}

void rejectUnsupported(const ast::Expr& e) {
  if (!e.windowName.empty() || (e.window && !e.window->baseName.empty())) {
    failAt("Window name references are not yet supported", e.pos);
  }
  if (e.filter) failAt("not supported yet: aggregate FILTER clause", e.pos);
  if (!e.orderBy.empty()) failAt("not supported yet: ORDER BY inside aggregate calls", e.pos);
  const std::optional<ast::WindowFrame>& f = e.window->frame;
  if (!f) return;
  if (f->unit == ast::WindowFrame::Unit::kGroups) failAt("not supported yet: GROUPS window frames", e.pos);
  if (!f->exclude.empty()) failAt("not supported yet: window frame EXCLUDE " + f->exclude, e.pos);
}

// A grouped query's window specification may only name aggregates the aggregate node computes.
void checkSpecAggregates(const ast::Expr& spec, Binder& binder, const DerivedSlots* slots) {
  if (!slots) return;
  std::vector<const ast::Expr*> aggs;
  collectAggregates(spec, binder.ctx(), aggs);
  for (const ast::Expr* a : aggs) {
    std::string text = printFingerprint(*a);
    if (std::find(slots->aggTexts.begin(), slots->aggTexts.end(), text) == slots->aggTexts.end()) {
      failAt("Aggregate function " + lowerName(a->name) +
                 " in a window function's ORDER BY is only supported when the same aggregate also appears in the "
                 "SELECT list",
             a->pos);
    }
  }
}

WindowBound bindBound(const ast::FrameBound& b, ExprBinder& eb) {
  WindowBound out;
  out.kind = static_cast<WindowBound::Kind>(b.kind);
  if (b.offset) out.offset = eb.bind(*b.offset);
  return out;
}

bool hasOffset(const WindowBound& b) {
  return b.kind == WindowBound::Kind::kPreceding || b.kind == WindowBound::Kind::kFollowing;
}

WindowFrameDef bindFrame(const ast::Expr& e, ExprBinder& eb) {
  WindowFrameDef f;
  const std::optional<ast::WindowFrame>& frame = e.window->frame;
  if (!frame) return f;
  f.range = frame->unit == ast::WindowFrame::Unit::kRange;
  f.start = bindBound(frame->start, eb);
  f.end = bindBound(frame->end, eb);
  if (f.range && (hasOffset(f.start) || hasOffset(f.end)) && e.window->orderBy.size() != 1) {
    failAt("RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column", e.pos);
  }
  return f;
}

// The printed PARTITION BY + ORDER BY that identifies a shareable window.
std::string windowKey(const ast::WindowSpec& w) {
  std::string key;
  for (const auto& p : w.partitionBy) key += printExpr(*p) + ",";
  key += "|";
  for (const auto& t : w.orderBy) {
    key += printExpr(*t.expr) + (t.desc ? " desc" : " asc") + std::to_string(static_cast<int>(t.nulls)) + ",";
  }
  return key;
}

WindowDef bindWindow(const ast::WindowSpec& w, ExprBinder& eb, Binder& binder, const DerivedSlots* slots) {
  WindowDef def;
  for (const auto& p : w.partitionBy) {
    checkSpecAggregates(*p, binder, slots);
    def.partition.push_back(orderingKey(eb.bind(*p)));
    def.partitionCollations.push_back(def.partition.back()->collation);
  }
  for (const auto& t : w.orderBy) {
    checkSpecAggregates(*t.expr, binder, slots);
    SortKey k;
    k.expr = orderingKey(eb.bind(*t.expr));
    k.collation = k.expr->collation;
    k.desc = t.desc;
    k.nullsFirst = t.nulls != ast::OrderingTerm::Nulls::kLast;
    def.order.push_back(std::move(k));
  }
  return def;
}

}  // namespace

OperatorPtr planWindows(Binder& binder, OperatorPtr input, const Scope& inputScope, const DerivedSlots* inputSlots,
                        const std::vector<const ast::Expr*>& calls, const ExprBinder::Aliases* aliases) {
  ExprBinder eb(binder, inputScope, inputSlots);
  ExprBinder specBinder(binder, inputScope, inputSlots);
  specBinder.withAliases(aliases);
  std::vector<WindowDef> windows;
  std::vector<std::string> windowKeys;
  std::vector<WindowCall> out;
  for (const ast::Expr* e : calls) {
    rejectUnsupported(*e);
    WindowCall call;
    resolveFunction(*e, binder.ctx(), call);
    for (const auto& a : e->args) call.args.push_back(eb.bind(*a));
    if (!call.args.empty()) {
      call.collation = call.args[0]->collation;
      call.argType = call.args[0]->type;
    }
    call.frame = bindFrame(*e, eb);
    std::string key = windowKey(*e->window);
    auto it = std::find(windowKeys.begin(), windowKeys.end(), key);
    call.window = static_cast<size_t>(it - windowKeys.begin());
    if (it == windowKeys.end()) {
      windowKeys.push_back(key);
      windows.push_back(bindWindow(*e->window, specBinder, binder, inputSlots));
    }
    out.push_back(std::move(call));
  }
  return std::make_unique<WindowOp>(std::move(input), std::move(windows), std::move(out));
}

}  // namespace optic
