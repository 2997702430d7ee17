// Catalog: schemas and the objects in them (tables, indexes, views), with their storage.
//
// A TableSchema is immutable once published: DDL builds a new one and swaps the shared_ptr, so
// a plan bound against the old shape keeps a consistent view until it is re-bound (every DDL
// bumps Catalog::version(), and prepared plans re-bind when it changed). Expressions stored in
// the catalog (DEFAULT, CHECK, generated columns, partial-index predicates, view bodies) point
// into parsed ASTs that the schema object keeps alive.
//
// Names are case-insensitive: maps are keyed by lower-cased names, objects keep their spelling.
// Tables and views share one namespace per schema; index names are unique per schema.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/collation.h"
#include "core/common/logical_type.h"
#include "core/common/names.h"
#include "core/parser/ast.h"
#include "core/storage/kv_store.h"

namespace optic {

struct MaterializedView;  // core/catalog/materialized_view.h
struct AssertionSchema;   // core/catalog/assertion.h
struct LensDeployment;    // core/catalog/lens.h

using AstKeepAlive = std::vector<std::shared_ptr<const ast::Statement>>;

struct ColumnSchema {
  std::string name;
  LogicalType type = LogicalType::kBlob;
  bool notNull = true;
  ast::ConflictAction notNullConflict = ast::ConflictAction::kNone;
  Collation collation = Collation::kBinary;
  bool collationDeclared = false;  // COLLATE written (rank 2) vs defaulted
  const ast::Expr* defaultExpr = nullptr;
  const ast::Expr* generated = nullptr;
  bool generatedStored = false;
  ast::Tags tags;
};

struct KeyColumn {
  int column = 0;  // index into TableSchema::columns
  bool desc = false;
  Collation collation = Collation::kBinary;
};

// A secondary structure over a table: a UNIQUE constraint's implicit index or a CREATE INDEX.
// Entry key = encoded key columns ‖ encoded primary key; value = empty.
struct IndexSchema {
  std::string name;
  std::vector<KeyColumn> columns;
  bool unique = false;
  bool implicit = false;                  // created for a UNIQUE constraint
  std::string constraintName;             // the UNIQUE constraint's name ("" for a plain index)
  bool mintedName = false;                // the constraint was declared unnamed: `_uc_<columns>`
  ast::ConflictAction onConflict = ast::ConflictAction::kNone;
  const ast::Expr* where = nullptr;       // partial index predicate
  ast::Tags tags;                         // the index's; for an implicit one, the constraint's
  ast::Tags exposedTags;                  // an exposed implicit index's own (ALTER INDEX … TAGS)
};

// A UNIQUE constraint's implicit index is a backing detail: DROP/CREATE INDEX never address it
// and introspection hides it, unless the constraint carries `quereus.expose_implicit_index =
// true`. Exposed, it shows in schema() and index_info() and takes ALTER INDEX … TAGS (kept in
// exposedTags), under the constraint's name; its lifecycle stays the constraint's.
bool exposesImplicitIndex(const IndexSchema& ix);
// The name an unnamed UNIQUE constraint's structure takes: "_uc_" + its column names joined by "_".
std::string mintedUniqueName(const std::vector<std::string>& columns);

// Whether DROP INDEX can address the index: one a CREATE INDEX made.
inline bool isStandaloneIndex(const IndexSchema& ix) { return !ix.implicit; }
// Whether introspection and ALTER INDEX … TAGS see the index: a plain one or an exposed one.
inline bool isVisibleIndex(const IndexSchema& ix) { return !ix.implicit || exposesImplicitIndex(ix); }
// The tags introspection shows for a visible index.
inline const ast::Tags& visibleIndexTags(const IndexSchema& ix) { return ix.implicit ? ix.exposedTags : ix.tags; }

struct CheckConstraint {
  std::string name;
  const ast::Expr* expr = nullptr;
  std::string exprText;   // canonical text, for messages: "CHECK constraint failed: name (text)"
  bool onInsert = true;
  bool onUpdate = true;
  bool onDelete = false;
  bool deferred = false;  // contains a subquery: evaluated at COMMIT
  ast::ConflictAction onConflict = ast::ConflictAction::kNone;
  ast::Tags tags;
};

enum class FkAction : uint8_t { kRestrict, kCascade, kSetNull, kSetDefault };
const char* fkActionName(FkAction a);  // "restrict", "cascade", "set null", "set default"

struct ForeignKey {
  std::string name;
  std::vector<int> columns;               // child columns
  std::string parentSchema;               // lower-case
  std::string parentTable;                // as written
  std::vector<std::string> parentColumns; // empty = parent's primary key
  FkAction onDelete = FkAction::kRestrict;
  FkAction onUpdate = FkAction::kRestrict;
  ast::Tags tags;
};

// A `with context (v type [null], …)` variable (sql-core.md §3.8): supplied per statement by
// `insert|update|delete … with context v = e`, readable in the table's DEFAULTs and CHECKs.
struct ContextVariable {
  std::string name;  // as declared
  LogicalType type = LogicalType::kAny;
  bool nullable = false;  // NOT NULL by default: a statement reading it must supply it
};

struct TableSchema {
  std::string schemaName;  // lower-case
  std::string name;        // as declared
  std::vector<ColumnSchema> columns;
  std::vector<KeyColumn> primaryKey;  // empty only for a singleton table (`primary key ()`)
  ast::ConflictAction pkConflict = ast::ConflictAction::kNone;
  bool pkDeclared = false;
  std::vector<IndexSchema> indexes;
  std::vector<CheckConstraint> checks;
  std::vector<ForeignKey> foreignKeys;
  std::string module = "memory";
  std::vector<ContextVariable> contextVariables;
  ast::Tags tags;
  AstKeepAlive keepAlive;
  // A maintained table's derivation (views.md §3): null for a plain table.
  std::shared_ptr<const MaterializedView> derivation;

  int findColumn(std::string_view name) const;  // -1 when absent
  int findContextVariable(std::string_view name) const;  // -1 when absent
  const IndexSchema* findIndex(std::string_view name) const;
};

struct ViewSchema {
  std::string schemaName;
  std::string name;
  std::vector<std::string> columnNames;  // explicit `(a, b)` list; empty = from the body
  const ast::Select* select = nullptr;
  const std::vector<ast::ViewColumnDefault>* defaults = nullptr;  // `with defaults (…)`
  std::string sql;  // the CREATE VIEW text
  ast::Tags tags;
  AstKeepAlive keepAlive;
};

// A table's schema plus its storage. The schema pointer is replaced by ALTER; the stores live as
// long as the table does.
class Table {
 public:
  explicit Table(std::shared_ptr<const TableSchema> schema);

  const TableSchema& schema() const { return *schema_; }
  std::shared_ptr<const TableSchema> schemaPtr() const { return schema_; }
  void setSchema(std::shared_ptr<const TableSchema> s) { schema_ = std::move(s); }

  // The row store and index stores. A store table of a database that loads lazily may be known
  // by its catalog entry only (store_load.h): until it is loaded, these throw kNotLoaded naming
  // it (Error::tablesToLoad), so a statement that reaches it fails (and rolls back) instead of
  // reading it as empty.
  KVStore& rows() {
    requireLoaded();
    if (needsRefill_) throwAwaitsRefill();
    return *rows_;
  }
  // The store of schema().indexes[i]; created on demand when indexes are added.
  KVStore& indexStore(size_t i) {
    requireLoaded();
    if (needsRefill_) throwAwaitsRefill();  // an index scan may serve rows without rows()
    return storedIndex(i);
  }
  void setIndexStores(std::vector<std::shared_ptr<KVStore>> stores) { indexes_ = std::move(stores); }
  const std::vector<std::shared_ptr<KVStore>>& indexStores() const { return indexes_; }

  bool loaded() const { return loaded_; }
  void setLoaded(bool loaded) { loaded_ = loaded; }
  // A maintained table restored from storage whose rows are not known to equal its body (no
  // clean-shutdown trust, a source refilled too, a memory backing): it is refilled from its body
  // as a statement starts once it and its sources are in memory (Engine::beginStatement), and
  // left out of row-time maintenance until then. Until refilled, rows() throws kNotLoaded naming
  // it and `refillSources` (catalog keys), so a read that got ahead of the load fails instead of
  // seeing stale rows. Cleared by the refill (before it writes); undo sets it again.
  bool needsRefill() const { return needsRefill_; }
  void setNeedsRefill(bool needs) { needsRefill_ = needs; }
  void setRefillSources(std::vector<std::string> sources) { refillSources_ = std::move(sources); }
  // The stores whether loaded or not: only for the store module, which fills them when it loads
  // the table and compares their identity when it commits.
  KVStore& storedRows() { return *rows_; }
  KVStore& storedIndex(size_t i);

 private:
  void requireLoaded() const {
    if (!loaded_) throwNotLoaded();
  }
  [[noreturn]] void throwNotLoaded() const;
  [[noreturn]] void throwAwaitsRefill() const;

  std::shared_ptr<const TableSchema> schema_;
  std::shared_ptr<KVStore> rows_;
  std::vector<std::shared_ptr<KVStore>> indexes_;
  bool loaded_ = true;
  bool needsRefill_ = false;
  std::vector<std::string> refillSources_;
};

struct Schema {
  std::string name;  // lower-case
  std::map<std::string, std::shared_ptr<Table>> tables;      // by lower-case name
  std::map<std::string, std::shared_ptr<const ViewSchema>> views;
  std::map<std::string, std::shared_ptr<const AssertionSchema>> assertions;  // by lower-case name
  // Stored materialized views that could not be restored when the database opened (a source
  // that no longer exists, a body that no longer plans), by lower-case name: why. Reading one
  // says so; DROP MATERIALIZED VIEW forgets it (core/persistence keeps its entry until then).
  std::map<std::string, std::string> unrestored;
  // A logical schema's deployed lens (views.md §4): null for a physical schema.
  std::shared_ptr<const LensDeployment> lens;
};

class Catalog {
 public:
  Catalog();

  Schema* findSchema(std::string_view name);
  Schema& schema(std::string_view name);  // throws "schema not found" when absent
  Schema& addSchema(std::string_view name);
  void removeSchema(std::string_view name);  // undo of addSchema (apply schema rolled back)
  const std::map<std::string, Schema>& schemas() const { return schemas_; }

  std::shared_ptr<Table> findTable(std::string_view schema, std::string_view name) const;
  std::shared_ptr<const ViewSchema> findView(std::string_view schema, std::string_view name) const;
  // Which table an index belongs to, in one schema; {nullptr, -1} when none. With `accept`, only
  // indexes it accepts match: a name may be one table's constraint structure and another table's
  // index (constraint names are per table), so the scan goes on past a refused one.
  std::pair<std::shared_ptr<Table>, int> findIndex(std::string_view schema, std::string_view name,
                                                   bool (*accept)(const IndexSchema&) = nullptr) const;

  uint64_t version() const { return version_; }
  void bumpVersion() { ++version_; }

 private:
  std::map<std::string, Schema> schemas_;
  uint64_t version_ = 1;
};

// "Table 'x' not found in schema path: main,temp" (or "… in schema 'app'" for one named schema),
// with "Did you mean: app.x?" when another schema has a table or view of that name. One message
// for every statement that looks a table up.
std::string tableNotFoundMessage(const Catalog& catalog, const std::string& name, const std::vector<std::string>& searched,
                                 bool explicitSchema);

}  // namespace optic
