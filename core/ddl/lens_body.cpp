// Lens bodies (lens_body.h).
#include "core/ddl/lens_body.h"

#include <algorithm>
#include <map>

#include "core/common/error.h"
#include "core/common/names.h"
#include "core/execution/context.h"
#include "core/common/value_ops.h"
#include "core/parser/ast_clone.h"
#include "core/parser/printer.h"

namespace optic {
namespace {

[[noreturn]] void lensFail(const std::string& message, const ast::SourcePos* pos = nullptr) {
  if (pos && pos->line > 0) throw Error(ErrorCode::kError, message, pos->line, pos->column);
  fail(message);
}

ast::ExprPtr columnRef(const std::string& table, const std::string& name) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kColumn;
  e->table = table;
  e->name = name;
  return e;
}

ast::ResultColumn aliasedTerm(ast::ExprPtr e, const std::string& alias) {
  ast::ResultColumn rc;
  rc.expr = std::move(e);
  rc.alias = alias;
  return rc;
}

ast::FromItemPtr tableSource(const std::string& schema, const std::string& table, const std::string& alias) {
  auto f = std::make_unique<ast::FromItem>();
  f->kind = ast::FromItem::Kind::kTable;
  f->table.schema = schema;
  f->table.name = table;
  f->alias = alias;
  return f;
}

// The first source (in order) that has a column named `name`: {source, column index}.
std::pair<const LensSource*, int> findByName(const std::vector<LensSource>& sources, const std::string& name) {
  for (const LensSource& s : sources) {
    int c = s.table->schema().findColumn(name);
    if (c >= 0) return {&s, c};
  }
  return {nullptr, -1};
}

[[noreturn]] void noBacking(const std::string& logicalSchema, const TableSchema& logical, const std::string& column) {
  lensFail("lens: logical column '" + logicalSchema + "." + logical.name + "." + column + "' has no basis backing");
}

// ---- the default mapper --------------------------------------------------------------------

CompiledLensBody defaultBody(Context& ctx, const std::string& logicalSchema, const TableSchema& logical,
                             const std::string& basis) {
  std::shared_ptr<Table> table = ctx.catalog().findTable(basis, logical.name);
  if (!table) lensFail("lens: logical table '" + logicalSchema + "." + logical.name + "' has no basis backing");
  CompiledLensBody out;
  out.sources.push_back(LensSource{table->schema().name, table, false});
  auto select = std::make_shared<ast::Select>();
  select->from = tableSource(basis, table->schema().name, "");
  for (const ColumnSchema& c : logical.columns) {
    int bc = table->schema().findColumn(c.name);
    if (bc < 0) noBacking(logicalSchema, logical, c.name);
    select->columns.push_back(aliasedTerm(columnRef("", table->schema().columns[bc].name), c.name));
    out.columns.push_back(LensBodyColumn{c.name, false, std::nullopt, std::nullopt});
  }
  out.select = std::move(select);
  return out;
}

// ---- decomposition advertisements ----------------------------------------------------------

struct DecompMember {
  std::shared_ptr<Table> table;
  std::string anchor;
  bool optional = false;
  std::vector<std::string> key;
  std::map<std::string, std::string> columns;  // lower-case logical column -> basis column
};

// The members a basis table advertises for `logical` (one per decomposition id whose
// `quereus.lens.decomp.logical.<id>` names it with the primary-storage role).
void collectMembers(const std::shared_ptr<Table>& table, const std::string& logical, std::vector<DecompMember>& out) {
  const std::string prefix = "quereus.lens.decomp.";
  std::map<std::string, std::map<std::string, std::string>> byId;  // id -> field -> value
  std::map<std::string, std::map<std::string, std::string>> colsById;
  for (const ast::Tag& tag : table->schema().tags) {
    std::string key = lowerName(tag.key);
    if (key.rfind(prefix, 0) != 0 || tag.value.isNull()) continue;
    std::string rest = tag.key.substr(prefix.size());
    size_t dot = rest.find('.');
    if (dot == std::string::npos) continue;
    std::string field = lowerName(rest.substr(0, dot));
    std::string tail = rest.substr(dot + 1);
    if (field == "col") {
      size_t d2 = tail.find('.');
      if (d2 == std::string::npos) continue;
      colsById[lowerName(tail.substr(0, d2))][lowerName(tail.substr(d2 + 1))] = toText(tag.value);
    } else {
      byId[lowerName(tail)][field] = toText(tag.value);
    }
  }
  for (auto& [id, fields] : byId) {
    if (lowerName(fields["logical"]) != lowerName(logical)) continue;
    std::string role = fields.count("role") ? fields["role"] : "primary-storage";
    if (role != "primary-storage") continue;
    DecompMember m;
    m.table = table;
    m.anchor = fields.count("anchor") ? fields["anchor"] : table->schema().name;
    m.optional = fields["presence"] == "optional";
    m.key = splitNameList(fields["key"]);
    m.columns = colsById[id];
    out.push_back(std::move(m));
  }
}

std::vector<DecompMember> advertisedMembers(Context& ctx, const std::string& basis, const std::string& logical) {
  std::vector<DecompMember> out;
  const Schema* s = ctx.catalog().findSchema(basis);
  if (!s) return out;
  for (const auto& [key, table] : s->tables) collectMembers(table, logical, out);
  return out;
}

// `member.k1 = anchor.k1 and …` (positional over the two key lists; `1 = 1` when empty).
ast::ExprPtr keyJoin(const DecompMember& anchor, const DecompMember& member) {
  ast::ExprPtr on;
  size_t n = std::min(anchor.key.size(), member.key.size());
  for (size_t i = 0; i < n; ++i) {
    auto eq = std::make_unique<ast::Expr>();
    eq->kind = ast::ExprKind::kBinary;
    eq->op = "=";
    eq->args.push_back(columnRef(member.table->schema().name, member.key[i]));
    eq->args.push_back(columnRef(anchor.table->schema().name, anchor.key[i]));
    if (!on) {
      on = std::move(eq);
      continue;
    }
    auto both = std::make_unique<ast::Expr>();
    both->kind = ast::ExprKind::kBinary;
    both->op = "and";
    both->args.push_back(std::move(on));
    both->args.push_back(std::move(eq));
    on = std::move(both);
  }
  if (!on) {
    on = std::make_unique<ast::Expr>();
    on->kind = ast::ExprKind::kBinary;
    on->op = "=";
    for (int i = 0; i < 2; ++i) {
      auto one = std::make_unique<ast::Expr>();
      one->value = Value::integer(1);
      on->args.push_back(std::move(one));
    }
  }
  return on;
}

CompiledLensBody decompositionBody(const std::string& logicalSchema, const TableSchema& logical, const std::string& basis,
                                   std::vector<DecompMember> members) {
  const std::string anchorName = members.front().anchor;
  auto anchorIt = std::find_if(members.begin(), members.end(),
                               [&](const DecompMember& m) { return lowerName(m.table->schema().name) == lowerName(anchorName); });
  if (anchorIt == members.end()) {
    lensFail("lens: decomposition for logical table '" + logicalSchema + "." + logical.name + "' names anchor '" +
             anchorName + "', which is not among the members");
  }
  std::rotate(members.begin(), anchorIt, anchorIt + 1);  // anchor first
  CompiledLensBody out;
  auto select = std::make_shared<ast::Select>();
  const DecompMember& anchor = members.front();
  select->from = tableSource(basis, anchor.table->schema().name, anchor.table->schema().name);
  out.sources.push_back(LensSource{anchor.table->schema().name, anchor.table, false});
  for (size_t i = 1; i < members.size(); ++i) {
    const DecompMember& m = members[i];
    auto join = std::make_unique<ast::FromItem>();
    join->kind = ast::FromItem::Kind::kJoin;
    join->joinType = m.optional ? ast::JoinType::kLeft : ast::JoinType::kInner;
    join->left = std::move(select->from);
    join->right = tableSource(basis, m.table->schema().name, m.table->schema().name);
    join->on = keyJoin(anchor, m);
    select->from = std::move(join);
    out.sources.push_back(LensSource{m.table->schema().name, m.table, m.optional});
  }
  for (const ColumnSchema& c : logical.columns) {
    LensBodyColumn col{c.name, false, std::nullopt, anchor.table->schema().name};
    ast::ExprPtr term;
    for (const DecompMember& m : members) {
      auto it = m.columns.find(lowerName(c.name));
      if (it == m.columns.end()) continue;
      term = columnRef(m.table->schema().name, it->second);
      col.member = m.table->schema().name;
      break;
    }
    if (!term) {
      auto [src, bc] = findByName(out.sources, c.name);
      if (!src) {
        lensFail("lens: decomposition for logical table '" + logicalSchema + "." + logical.name +
                 "' cannot resolve column '" + c.name +
                 "': it is not mapped by any advertised member, not EAV-backed, and no decomposition member has a "
                 "same-named column");
      }
      term = columnRef(src->ref, src->table->schema().columns[bc].name);
      col.member = src->table->schema().name;
    }
    select->columns.push_back(aliasedTerm(std::move(term), c.name));
    out.columns.push_back(std::move(col));
  }
  out.select = std::move(select);
  return out;
}

// ---- overrides -----------------------------------------------------------------------------

// The FROM tables of an override, each qualified with the basis schema (a table of another
// schema is refused: an override may not re-anchor outside its basis).
void collectOverrideSources(Context& ctx, ast::FromItem& f, const std::string& basis, const std::string& where,
                            bool optional, std::vector<LensSource>& out) {
  switch (f.kind) {
    case ast::FromItem::Kind::kTable: {
      if (!f.table.schema.empty() && lowerName(f.table.schema) != basis) {
        lensFail(where + " reads '" + f.table.schema + "." + f.table.name + "', which is not in basis schema '" + basis +
                     "'; a lens override's sources must live in its basis",
                 &f.pos);
      }
      std::shared_ptr<Table> t = ctx.catalog().findTable(basis, f.table.name);
      if (!t) {
        lensFail(where + " reads '" + f.table.name + "', which is not a table of basis schema '" + basis + "'", &f.pos);
      }
      f.table.schema = basis;
      out.push_back(LensSource{f.alias.empty() ? t->schema().name : f.alias, t, optional});
      return;
    }
    case ast::FromItem::Kind::kJoin:
      collectOverrideSources(ctx, *f.left, basis, where, optional || f.joinType == ast::JoinType::kRight ||
                                                                 f.joinType == ast::JoinType::kFull, out);
      collectOverrideSources(ctx, *f.right, basis, where, optional || f.joinType == ast::JoinType::kLeft ||
                                                                  f.joinType == ast::JoinType::kFull, out);
      return;
    default:
      lensFail(where + " must read basis tables only (no subquery, function or DML source)", &f.pos);
  }
}

// The output name of an override term: its alias, else the bare column it reads.
std::string termName(const ast::ResultColumn& rc, const std::string& where) {
  if (rc.kind != ast::ResultColumn::Kind::kExpr) lensFail(where + " must list its columns explicitly (no '*')", &rc.pos);
  if (!rc.alias.empty()) return rc.alias;
  if (rc.expr->kind == ast::ExprKind::kColumn) return rc.expr->name;
  lensFail(where + " has a computed term '" + printExpr(*rc.expr) + "' without an alias; alias it to the logical "
                   "column it computes",
           &rc.pos);
}

CompiledLensBody overrideBody(Context& ctx, const std::string& logicalSchema, const TableSchema& logical,
                              const std::string& basis, const ast::CreateView& cv) {
  const std::string where = "lens: override body for '" + logicalSchema + "." + logical.name + "'";
  const ast::Select& in = *cv.select;
  if (in.setOp != ast::SetOp::kNone) lensFail(where + " must be a single SELECT (a compound set operation is not allowed)", &in.pos);
  if (!in.values.empty()) lensFail(where + " must be a single SELECT (a VALUES body is not allowed)", &in.pos);
  if (!in.from) lensFail(where + " reads no basis table", &in.pos);
  ast::SelectPtr owned = ast::clone(in);
  CompiledLensBody out;
  out.fromOverride = true;
  collectOverrideSources(ctx, *owned->from, basis, where, false, out.sources);
  std::map<std::string, size_t> covered;  // lower-case output name -> term index
  for (size_t i = 0; i < owned->columns.size(); ++i) {
    std::string name = termName(owned->columns[i], where);
    if (logical.findColumn(name) < 0) {
      lensFail(where + " produces column '" + name + "', which is not a column of logical table '" + logical.name + "'",
               &owned->columns[i].pos);
    }
    if (!covered.emplace(lowerName(name), i).second) {
      lensFail(where + " produces column '" + name + "' more than once", &owned->columns[i].pos);
    }
  }
  std::vector<ast::ResultColumn> terms;
  for (const ColumnSchema& c : logical.columns) {
    auto it = covered.find(lowerName(c.name));
    if (it != covered.end()) {
      ast::ResultColumn rc = std::move(owned->columns[it->second]);
      rc.alias = c.name;
      terms.push_back(std::move(rc));
      out.columns.push_back(LensBodyColumn{c.name, true, std::nullopt, std::nullopt});
      continue;
    }
    auto [src, bc] = findByName(out.sources, c.name);
    if (!src) noBacking(logicalSchema, logical, c.name);
    std::string qualifier = out.sources.size() == 1 ? "" : src->ref;
    terms.push_back(aliasedTerm(columnRef(qualifier, src->table->schema().columns[bc].name), c.name));
    out.columns.push_back(LensBodyColumn{c.name, false, std::nullopt, std::nullopt});
  }
  owned->columns = std::move(terms);
  out.select = std::shared_ptr<ast::Select>(std::move(owned));
  return out;
}

}  // namespace

CompiledLensBody compileLensBody(Context& ctx, const std::string& logicalSchema, const TableSchema& logical,
                                 const std::string& basis, const ast::CreateView* override) {
  if (override) return overrideBody(ctx, logicalSchema, logical, basis, *override);
  std::vector<DecompMember> members = advertisedMembers(ctx, basis, logical.name);
  if (!members.empty()) return decompositionBody(logicalSchema, logical, basis, std::move(members));
  return defaultBody(ctx, logicalSchema, logical, basis);
}

std::pair<const LensSource*, int> bareColumnSource(const CompiledLensBody& body, const ast::Expr& term) {
  if (term.kind != ast::ExprKind::kColumn) return {nullptr, -1};
  for (const LensSource& s : body.sources) {
    if (!term.table.empty() && lowerName(term.table) != lowerName(s.ref)) continue;
    int c = s.table->schema().findColumn(term.name);
    if (c >= 0) return {&s, c};
  }
  return {nullptr, -1};
}

}  // namespace optic
