// Declared schemas (declared_schema.h).
#include "core/catalog/declared_schema.h"

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"

namespace optic {

namespace {

// One namespace of the declaration: remembers which kind first claimed each name.
class DeclaredNames {
 public:
  explicit DeclaredNames(std::string schema) : schema_(std::move(schema)) {}

  void claim(const std::string& name, const std::string& kind) {
    auto [it, fresh] = kinds_.emplace(lowerName(name), kind);
    if (fresh) return;
    if (it->second == kind) {
      fail(capitalized(kind) + " '" + name + "' is declared more than once in schema '" + schema_ + "'");
    }
    fail("'" + name + "' is declared as both " + article(it->second) + " and " + article(kind));
  }

 private:
  static std::string capitalized(std::string s) {
    if (!s.empty()) s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
  }
  static std::string article(const std::string& kind) { return (kind[0] == 'a' || kind[0] == 'i' ? "an " : "a ") + kind; }

  std::string schema_;
  std::map<std::string, std::string> kinds_;
};

}  // namespace

std::shared_ptr<const DeclaredSchema> buildDeclaredSchema(std::shared_ptr<const ast::Statement> declare) {
  const ast::DeclareSchema& ds = *declare->declareSchema;
  auto d = std::make_shared<DeclaredSchema>();
  d->name = ds.schema;
  d->logical = ds.logical;
  d->version = ds.version;
  for (const auto& [key, value] : ds.usingOptions) {
    if (lowerName(key) == "default_vtab_module") d->defaultModule = lowerName(toText(value));
    else if (lowerName(key) != "default_vtab_args") fail("Unsupported declare schema option '" + key + "'");
  }
  DeclaredNames relations(ds.schema);  // tables, views and materialized views share one namespace
  DeclaredNames indexes(ds.schema);
  DeclaredNames assertions(ds.schema);
  for (const ast::StatementPtr& item : ds.items) {
    switch (item->kind) {
      case ast::StatementKind::kCreateTable:
        relations.claim(item->createTable->name.name, item->createTable->maintainedAs ? "materialized view" : "table");
        if (item->createTable->maintainedAs) d->materializedViews.push_back(item.get());
        else d->tables.push_back(item->createTable.get());
        break;
      case ast::StatementKind::kCreateView:
        relations.claim(item->createView->name.name, item->createView->materialized ? "materialized view" : "view");
        if (item->createView->materialized) d->materializedViews.push_back(item.get());
        else d->views.push_back(item->createView.get());
        break;
      case ast::StatementKind::kCreateIndex:
        indexes.claim(item->createIndex->name.name, "index");
        d->indexes.push_back(item->createIndex.get());
        break;
      case ast::StatementKind::kCreateAssertion:
        assertions.claim(item->createAssertion->name.name, "assertion");
        d->assertions.push_back(item->createAssertion.get());
        break;
      case ast::StatementKind::kSeed:
        d->seeds.push_back(item->seed.get());
        break;
      default:
        fail("Unexpected item in declare schema " + ds.schema);
    }
  }
  d->keepAlive = std::move(declare);
  return d;
}

std::shared_ptr<const DeclaredSchema> DeclaredSchemas::find(const std::string& schema) const {
  auto it = byName_.find(lowerName(schema));
  return it == byName_.end() ? nullptr : it->second;
}

std::shared_ptr<const DeclaredSchema> DeclaredSchemas::put(std::shared_ptr<const DeclaredSchema> d) {
  std::shared_ptr<const DeclaredSchema>& slot = byName_[lowerName(d->name)];
  std::shared_ptr<const DeclaredSchema> previous = std::move(slot);
  slot = std::move(d);
  return previous;
}

void DeclaredSchemas::restore(const std::string& schema, std::shared_ptr<const DeclaredSchema> previous) {
  if (previous) byName_[lowerName(schema)] = std::move(previous);
  else byName_.erase(lowerName(schema));
}

std::shared_ptr<const ast::Statement> DeclaredSchemas::findLens(const std::string& logicalSchema) const {
  auto it = lenses_.find(lowerName(logicalSchema));
  return it == lenses_.end() ? nullptr : it->second;
}

std::shared_ptr<const ast::Statement> DeclaredSchemas::putLens(std::shared_ptr<const ast::Statement> lens) {
  std::shared_ptr<const ast::Statement>& slot = lenses_[lowerName(lens->declareLens->name.name)];
  std::shared_ptr<const ast::Statement> previous = std::move(slot);
  slot = std::move(lens);
  return previous;
}

void DeclaredSchemas::restoreLens(const std::string& logicalSchema, std::shared_ptr<const ast::Statement> previous) {
  if (previous) lenses_[lowerName(logicalSchema)] = std::move(previous);
  else lenses_.erase(lowerName(logicalSchema));
}

}  // namespace optic
