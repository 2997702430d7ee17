// Declared schemas (sql-core.md §10): the stored form of `declare schema s { … }`.
//
// A declaration is only a statement of intent: it changes nothing in the catalog until
// `apply schema s` (core/ddl/schema_diff.h) turns the difference into DDL. Declaring
// validates the item list (each name once per namespace: tables, views and materialized views
// share one, indexes and assertions have their own) and replaces an earlier declaration of the
// same schema. Items keep pointing into the DECLARE statement, which the declaration keeps alive.
//
// A logical declaration (`declare logical schema L { … }`, views.md §4) is stored the same way,
// flagged `logical`; `apply schema L` deploys it as a lens (core/ddl/lens_deploy.h) instead of
// diffing it. A `declare lens for L over B { … }` is stored beside it, keyed by L, and replaces an
// earlier lens of L.
//
// Names are case-insensitive: declarations are keyed by the lower-cased schema name.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/parser/ast.h"

namespace optic {

struct DeclaredSchema {
  std::string name;           // as written in DECLARE
  std::string defaultModule;  // `using (default_vtab_module = '…')`, "" when not given
  std::string version;
  bool logical = false;       // `declare logical schema`
  std::vector<const ast::CreateTable*> tables;          // plain tables
  std::vector<const ast::Statement*> materializedViews; // CreateView (materialized) or CreateTable … maintained as
  std::vector<const ast::CreateView*> views;
  std::vector<const ast::CreateIndex*> indexes;
  std::vector<const ast::CreateAssertion*> assertions;
  std::vector<const ast::Seed*> seeds;
  std::shared_ptr<const ast::Statement> keepAlive;  // the DECLARE statement
};

// Validates a DECLARE SCHEMA statement into a declaration (throws on a duplicate name or an
// unknown `using` option).
std::shared_ptr<const DeclaredSchema> buildDeclaredSchema(std::shared_ptr<const ast::Statement> declare);

// The declarations of one database, by lower-cased schema name.
class DeclaredSchemas {
 public:
  std::shared_ptr<const DeclaredSchema> find(const std::string& schema) const;
  // Replaces the declaration of its schema; returns the one it replaced (null when none), so a
  // transaction can put it back.
  std::shared_ptr<const DeclaredSchema> put(std::shared_ptr<const DeclaredSchema> d);
  void restore(const std::string& schema, std::shared_ptr<const DeclaredSchema> previous);

  // The `declare lens for L …` statement of logical schema L, or null.
  std::shared_ptr<const ast::Statement> findLens(const std::string& logicalSchema) const;
  // Replaces L's lens; returns the one it replaced (null when none), for undo.
  std::shared_ptr<const ast::Statement> putLens(std::shared_ptr<const ast::Statement> lens);
  void restoreLens(const std::string& logicalSchema, std::shared_ptr<const ast::Statement> previous);

 private:
  std::map<std::string, std::shared_ptr<const DeclaredSchema>> byName_;
  std::map<std::string, std::shared_ptr<const ast::Statement>> lenses_;
};

}  // namespace optic
