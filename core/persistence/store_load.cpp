// Lazy loading: a statement's closure of store tables (store_load.h).
#include "core/persistence/store_load.h"

#include <map>
#include <set>

#include "core/catalog/assertion.h"
#include "core/catalog/canonical_ddl.h"
#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"
#include "core/catalog/store_layout.h"
#include "core/common/error.h"
#include "core/parser/lexer.h"
#include "core/persistence/store_module.h"

namespace optic {
namespace {

using parser::Token;
using parser::TokenKind;
using parser::tokenize;

enum class Need : uint8_t { kNothing, kRead, kWrite, kAssertions, kAll };

Need needOf(const ast::Statement& s) {
  using K = ast::StatementKind;
  switch (s.kind) {
    case K::kSelect: return Need::kRead;
    case K::kInsert:
    case K::kUpdate:
    case K::kDelete: return Need::kWrite;
    case K::kCreateTable: return s.createTable->maintainedAs ? Need::kRead : Need::kNothing;
    case K::kCreateView: return s.createView->materialized ? Need::kRead : Need::kNothing;
    case K::kCreateIndex:               // indexes the table's rows
    case K::kCreateAssertion:           // checks the assertion now
    case K::kRefreshMaterializedView: return Need::kRead;
    case K::kPragma: return Need::kNothing;  // settings only
    case K::kTransaction: {
      using T = ast::Transaction::Kind;
      T k = s.transaction->kind;
      return k == T::kCommit || k == T::kRelease ? Need::kAssertions : Need::kNothing;
    }
    default: return Need::kAll;
  }
}

// The tables reached from statement texts, grown to a fixpoint.
class Closure {
 public:
  explicit Closure(const Catalog& catalog) : catalog_(catalog) {
    for (const auto& [schemaName, schema] : catalog.schemas()) {
      for (const auto& [key, table] : schema.tables) {
        tables_[key].push_back(table.get());
        for (const ForeignKey& fk : table->schema().foreignKeys) children_[lowerName(fk.parentTable)].push_back(table.get());
      }
      for (const auto& [key, view] : schema.views) views_[lowerName(view->name)].push_back(view.get());
    }
  }

  void reachText(const std::string& text, bool writing) {
    std::vector<Token> tokens;
    try {
      tokens = tokenize(text);
    } catch (const Error&) {
      all_ = true;  // cannot read it: assume the worst
      return;
    }
    for (const Token& t : tokens) {
      if (t.kind != TokenKind::kWord && t.kind != TokenKind::kQuotedIdent) continue;
      std::string name = lowerName(t.text);
      if (auto it = tables_.find(name); it != tables_.end()) {
        for (Table* table : it->second) reachTable(*table, writing);
      }
      if (auto it = views_.find(name); it != views_.end()) {
        for (const ViewSchema* v : it->second) {
          if (seenViews_.insert(v).second) reachText(v->sql, writing);
        }
      }
    }
  }

  void reachAssertions() {
    if (assertionsReached_) return;
    assertionsReached_ = true;
    for (const auto& [schemaName, schema] : catalog_.schemas()) {
      for (const auto& [key, a] : schema.assertions) reachText(a->checkText, false);
    }
  }

  void assumeAll() { all_ = true; }
  bool all() const { return all_; }
  const std::set<const Table*>& reached() const { return reached_; }

 private:
  void reachTable(Table& table, bool writing) {
    // A table first reached by a read and later by a write is expanded again as written.
    bool expand = writing && written_.insert(&table).second;
    if (!reached_.insert(&table).second && !expand) return;
    const TableSchema& t = table.schema();
    // A materialized view's sources are needed to refill it, or to maintain it as it is
    // written; an adopted one is read from its own rows alone.
    if (t.derivation && (writing || table.needsRefill())) reachText(t.derivation->bodyText, writing);
    if (!expand) return;
    reachText(tableDdl(t, DdlStyle::kStore), true);  // FK parents, CHECK and DEFAULT subqueries
    if (auto it = children_.find(lowerName(t.name)); it != children_.end()) {
      for (Table* child : it->second) reachTable(*child, true);
    }
    for (const auto& [name, tables] : tables_) {
      for (Table* mv : tables) {
        if (mv->schema().derivation && derivesFrom(*mv, t)) reachTable(*mv, true);
      }
    }
    reachAssertions();
  }

  static bool derivesFrom(const Table& mv, const TableSchema& source) {
    std::string name = lowerName(source.name);
    for (const Token& tok : tokenize(mv.schema().derivation->bodyText)) {
      if ((tok.kind == TokenKind::kWord || tok.kind == TokenKind::kQuotedIdent) && lowerName(tok.text) == name) return true;
    }
    return false;
  }

  const Catalog& catalog_;
  std::map<std::string, std::vector<Table*>> tables_;    // by lower-case name, every schema
  std::map<std::string, std::vector<Table*>> children_;  // by the lower-case name of a parent they reference
  std::map<std::string, std::vector<const ViewSchema*>> views_;
  std::set<const Table*> reached_;
  std::set<const Table*> written_;
  std::set<const ViewSchema*> seenViews_;
  bool assertionsReached_ = false;
  bool all_ = false;
};

}  // namespace

std::vector<std::string> tablesToLoad(const Catalog& catalog, const std::vector<ast::StatementPtr>& statements) {
  Closure closure(catalog);
  for (const ast::StatementPtr& s : statements) {
    switch (needOf(*s)) {
      case Need::kNothing: break;
      case Need::kRead: closure.reachText(s->text, false); break;
      case Need::kWrite: closure.reachText(s->text, true); break;
      case Need::kAssertions: closure.reachAssertions(); break;
      case Need::kAll: closure.assumeAll(); break;
    }
  }
  std::set<std::string> out;
  auto consider = [&](const Table& t) {
    if (!t.loaded() && isPersistedTable(t.schema())) out.insert(tableCatalogKey(t.schema().schemaName, t.schema().name));
  };
  if (closure.all()) {
    for (const auto& [schemaName, schema] : catalog.schemas()) {
      for (const auto& [key, table] : schema.tables) consider(*table);
    }
  } else {
    for (const Table* t : closure.reached()) consider(*t);
  }
  return {out.begin(), out.end()};
}

}  // namespace optic
