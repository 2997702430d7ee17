// StoreModule::hydrate (store_module.h): opening rebuilds the catalog in phases (store.md §5).
//
//   1. Tables: every table bundle with its indexes and, unless lazy, its rows. A store-hosted
//      materialized view's backing comes back here as a plain table.
//   2. Views: registered without validating their bodies (checked when used), so a view over a
//      view or over a materialized view restores in any order.
//   3. Materialized views, in rounds: an entry whose body reads another still-pending one waits
//      for the next round; a round without progress reports the rest. Each either adopts its
//      phase-1 backing (the rows stay, no refill) or is marked for refill (Table::needsRefill),
//      which happens as the first statement that can read it starts (never at open, so opening
//      stays proportional to the catalog: a lazily loaded source is read when first touched).
//   4. Lenses: each logical schema's deployment is rebuilt from its stored declarations over the
//      views phase 2 restored (no DDL runs; the declarations are registered again, so `apply
//      schema` of the logical schema works after a reopen).
//
// Adoption needs trust in the stored rows, and every gate of the seed: the clean-shutdown
// marker was there (storage is as a clean close left it) and did not name the view as stale at
// close; the backing's shape is the re-declared one; and every source is a plain store table or
// a materialized view adopted before it. A view that cannot be restored (a `using memory` source
// that is gone, a body that no longer plans) is reported, remembered in Schema::unrestored (so
// reading it says why) and keeps its stored entry until dropped; it is never served stale.
//
// Invariants: stored_ and entries_ describe what the sink holds (the catalog after phase 1 and
// the entries as read), so the first commit writes exactly what rehydrate changed (a replaced
// backing, a dropped unrestorable one). Rehydrate itself writes nothing: two consecutive
// reopens leave the stored catalog byte-identical.
#include <algorithm>
#include <optional>

#include "core/catalog/store_layout.h"
#include "core/common/error.h"
#include "core/common/json.h"
#include "core/ddl/ddl.h"
#include "core/ddl/lens_deploy.h"
#include "core/ddl/materialized_view_statements.h"
#include "core/execution/context.h"
#include "core/parser/parser.h"
#include "core/persistence/store_module.h"
#include "core/planner/mv_plan.h"

namespace optic {
namespace {

struct CatalogEntries {
  std::vector<std::pair<std::string, std::string>> tables;
  std::map<std::string, std::string> views;
  std::map<std::string, std::string> materializedViews;
  std::map<std::string, std::string> lenses;
  std::optional<std::string> marker;
};

CatalogEntries classify(const KVStore& contents) {
  CatalogEntries out;
  forEachInStore(contents, kCatalogStoreName, [&](std::string_view key, std::string_view value) {
    if (key.starts_with(kViewCatalogPrefix)) out.views.emplace(key, value);
    else if (key.starts_with(kMaterializedViewCatalogPrefix)) out.materializedViews.emplace(key, value);
    else if (key.starts_with(kLensCatalogPrefix)) out.lenses.emplace(key, value);
    else if (key == kCleanShutdownKey) out.marker = std::string(value);
    else if (!isReservedCatalogKey(key)) out.tables.emplace_back(key, value);
  });
  return out;
}

// The marker's payload: the materialized views stale at close. nullopt when it does not parse
// (then nothing is trusted).
std::optional<std::set<std::string>> staleAtClose(const std::string& marker) {
  std::shared_ptr<const JsonDoc> doc = parseJson(marker);
  if (!doc || !doc->doc.is_array()) return std::nullopt;
  std::set<std::string> out;
  for (const Json& name : doc->doc) {
    if (!name.is_string()) return std::nullopt;
    out.insert(name.get<std::string>());
  }
  return out;
}

std::shared_ptr<const ast::Statement> parseEntry(const std::string& ddl) {
  std::vector<ast::StatementPtr> stmts = parseSql(ddl);
  if (stmts.size() != 1) fail("a catalog entry holds one statement");
  return std::shared_ptr<const ast::Statement>(std::move(stmts[0]));
}

// A stored materialized view waiting for phase 3.
struct PendingView {
  std::string key;   // its catalog key
  std::string name;  // schema.name, lower-case
  std::string schema;
  std::shared_ptr<const ast::Statement> stmt;
  std::string error;  // why it did not restore in the last round
};

// The tables the body of `p` reads (schema.table, lower-case).
std::vector<std::string> sourcesOf(Context& ctx, const PendingView& p) {
  const ast::Statement& s = *p.stmt;
  bool viewForm = s.kind == ast::StatementKind::kCreateView;
  const ast::Select* body = viewForm ? s.createView->select.get() : s.createTable->maintainedAs.get();
  if (!body) fail("not a materialized-view entry");
  std::string name = viewForm ? s.createView->name.name : s.createTable->name.name;
  std::vector<std::string> columns = viewForm ? s.createView->columns : std::vector<std::string>{};
  // Only the sources matter here: a body whose key the analysis no longer proves still reads them.
  const std::vector<int> anyKey;
  return analyseMaterializedBody(ctx, *body, p.schema, name, columns, &anyKey).sources;
}

bool isPlainStoreTable(const Catalog& catalog, const std::string& qualified) {
  size_t dot = qualified.find('.');
  std::shared_ptr<Table> t = catalog.findTable(qualified.substr(0, dot), qualified.substr(dot + 1));
  return t && !t->schema().derivation && isPersistedTable(t->schema());
}

}  // namespace

Rehydration StoreModule::hydrate(Context& ctx, const KVStore& contents, bool lazy) {
  Rehydration out;
  CatalogEntries entries = classify(contents);
  std::optional<std::set<std::string>> stale = entries.marker ? staleAtClose(*entries.marker) : std::nullopt;
  markerStored_ = entries.marker.has_value();
  trusted_ = stale.has_value();

  Settings saved = ctx.settings();
  ctx.settings().nondeterministicSchema = true;  // the schema was accepted when it was created
  for (const auto& [key, bundle] : entries.tables) {
    try {
      loadTable(ctx, bundle, contents, lazy);
    } catch (const Error& e) {
      out.errors.push_back(key + ": " + e.what());
    }
  }
  stored_ = describe(ctx.catalog());  // what the sink holds
  // A logical schema holds views only: no table bundle brings it back, its lens entry does.
  for (const auto& [key, text] : entries.lenses) {
    std::string schema = key.substr(kLensCatalogPrefix.size());
    if (!ctx.catalog().findSchema(schema)) ctx.catalog().addSchema(schema);
  }
  restoreViews(ctx, entries.views, out);
  restoreMaterializedViews(ctx, entries.materializedViews, stale.value_or(std::set<std::string>{}), trusted_, out);
  restoreLenses(ctx, entries.lenses, out);
  ctx.settings() = saved;
  ctx.txn().clear();  // loading is not a transaction: nothing to undo, nothing to commit
  entries_ = entries.views;
  entries_.insert(entries.materializedViews.begin(), entries.materializedViews.end());
  entries_.insert(entries.lenses.begin(), entries.lenses.end());
  return out;
}

// Phase 4: each deployed lens is rebuilt over its views (restored in phase 2) from its stored
// declarations; one that no longer compiles is reported, its views still read.
void StoreModule::restoreLenses(Context& ctx, const std::map<std::string, std::string>& entries, Rehydration& out) {
  for (const auto& [key, text] : entries) {
    try {
      restoreLensDeployment(ctx, text);
    } catch (const Error& e) {
      out.errors.push_back(key.substr(kLensCatalogPrefix.size()) + ": " + e.what());
    }
  }
}

void StoreModule::restoreViews(Context& ctx, const std::map<std::string, std::string>& entries, Rehydration& out) {
  for (const auto& [key, ddl] : entries) {
    try {
      std::shared_ptr<const ast::Statement> stmt = parseEntry(ddl);
      restoreView(ctx, stmt);
      out.views.push_back(key.substr(kViewCatalogPrefix.size()));
    } catch (const Error& e) {
      out.errors.push_back(key.substr(kViewCatalogPrefix.size()) + ": " + e.what());
    }
  }
}

void StoreModule::restoreMaterializedViews(Context& ctx, const std::map<std::string, std::string>& entries,
                                           const std::set<std::string>& staleAtClose, bool trustStored,
                                           Rehydration& out) {
  std::vector<PendingView> pending;
  for (const auto& [key, ddl] : entries) {
    PendingView p;
    p.key = key;
    p.name = key.substr(kMaterializedViewCatalogPrefix.size());
    p.schema = p.name.substr(0, p.name.find('.'));
    try {
      p.stmt = parseEntry(ddl);
    } catch (const Error& e) {
      out.errors.push_back(p.name + ": " + e.what());
      continue;
    }
    pending.push_back(std::move(p));
  }
  std::set<std::string> adopted;
  while (!pending.empty()) {
    std::set<std::string> waiting;
    for (const PendingView& p : pending) waiting.insert(p.name);
    std::vector<PendingView> next;
    for (PendingView& p : pending) {
      try {
        std::vector<std::string> sources = sourcesOf(ctx, p);
        auto upstream = std::find_if(sources.begin(), sources.end(),
                                     [&](const std::string& s) { return s != p.name && waiting.count(s); });
        if (upstream != sources.end()) fail("its source '" + *upstream + "' was not restored");
        bool trusted = trustStored && !staleAtClose.count(p.name) &&
                       std::all_of(sources.begin(), sources.end(), [&](const std::string& s) {
                         return adopted.count(s) || isPlainStoreTable(ctx.catalog(), s);
                       });
        RestoredMaterializedView r = restoreMaterializedView(ctx, p.stmt, trusted);
        out.materializedViews.push_back(p.name);
        for (const std::string& k : r.table->schema().derivation->unconfirmedKeys) {
          out.unconfirmedKeys.push_back(p.name + ": " + k);
        }
        if (r.table->needsRefill()) {
          r.table->setRefillSources(sources);
          out.refilled.push_back(p.name);
        } else {
          out.adopted.push_back(p.name);
          adopted.insert(p.name);
        }
        waiting.erase(p.name);
      } catch (const Error& e) {
        p.error = e.what();
        next.push_back(std::move(p));
      }
    }
    bool progress = next.size() != pending.size();
    pending = std::move(next);
    if (!progress) break;  // the rest cannot be restored
  }
  for (const PendingView& p : pending) {
    out.errors.push_back(p.name + ": " + p.error);
    unrestored_[p.key] = entries.at(p.key);
    Schema* schema = ctx.catalog().findSchema(p.schema);
    if (!schema) continue;
    std::string key = p.name.substr(p.schema.size() + 1);
    schema->unrestored[key] = p.error;
    // Its phase-1 backing holds rows nobody can vouch for: not served as a plain table (the
    // next commit erases it from storage; the entry stays until the view is dropped).
    schema->tables.erase(key);
    ctx.catalog().bumpVersion();
  }
}

void StoreModule::restoreRemoteEntries(Context& ctx,
                                       const std::map<std::string, std::optional<std::string>>& entries,
                                       RemoteResult& out) {
  Catalog& cat = ctx.catalog();
  std::map<std::string, std::string> views, materialized, lenses;
  // A deployed lens's schema exists before its views come back; an erased lens leaves its schema.
  for (const auto& [key, text] : entries) {
    if (!key.starts_with(kLensCatalogPrefix)) continue;
    std::string schema = key.substr(kLensCatalogPrefix.size());
    if (text) {
      lenses[key] = *text;
      if (!cat.findSchema(schema)) cat.addSchema(schema);
    } else if (Schema* s = cat.findSchema(schema)) {
      s->lens = nullptr;
      cat.bumpVersion();
    }
  }
  // Every object of a written or erased entry goes first: a put re-declares it whole.
  for (const auto& [key, ddl] : entries) {
    if (key.starts_with(kLensCatalogPrefix)) continue;
    bool view = key.starts_with(kViewCatalogPrefix);
    std::string name = key.substr(view ? kViewCatalogPrefix.size() : kMaterializedViewCatalogPrefix.size());
    std::string schema = name.substr(0, name.find('.'));
    std::string object = name.substr(schema.size() + 1);
    unrestored_.erase(key);
    if (Schema* s = cat.findSchema(schema)) s->unrestored.erase(object);
    if (view) {
      if (Schema* s = cat.findSchema(schema); s && s->views.count(object)) {
        std::shared_ptr<const ViewSchema> old = s->views[object];
        s->views.erase(object);
        ctx.txn().recordUndo([&cat, schema, object, old] { cat.schema(schema).views[object] = old; });
      }
    } else if (std::shared_ptr<Table> t = cat.findTable(schema, object); t && t->schema().derivation) {
      if (isPersistedTable(t->schema()) && ddl) {
        // The stored backing carries on under the re-declared view: plain until restored below.
        std::shared_ptr<const TableSchema> was = t->schemaPtr();
        auto plain = std::make_shared<TableSchema>(*was);
        plain->derivation = nullptr;
        t->setSchema(std::move(plain));
        ctx.txn().recordUndo([t, was] { t->setSchema(was); });
      } else {
        cat.schema(schema).tables.erase(object);
        ctx.txn().recordUndo([&cat, schema, object, t] { cat.schema(schema).tables[object] = t; });
      }
    }
    cat.bumpVersion();
    if (ddl) (view ? views : materialized)[key] = *ddl;
  }
  Settings saved = ctx.settings();
  ctx.settings().nondeterministicSchema = true;  // the schema was accepted where it was created
  Rehydration restored;
  restoreViews(ctx, views, restored);
  restoreMaterializedViews(ctx, materialized, {}, true, restored);
  restoreLenses(ctx, lenses, restored);
  ctx.settings() = saved;
  for (const auto& [key, ddl] : entries) {
    if (ddl) entries_[key] = *ddl;
    else entries_.erase(key);
  }
  out.errors.insert(out.errors.end(), restored.errors.begin(), restored.errors.end());
}

}  // namespace optic
