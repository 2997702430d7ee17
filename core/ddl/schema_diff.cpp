// Schema diff (schema_diff.h).
#include "core/ddl/schema_diff.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "core/catalog/assertion.h"
#include "core/catalog/canonical_ddl.h"
#include "core/catalog/materialized_view.h"
#include "core/catalog/reserved_tags.h"
#include "core/common/digest.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/ddl/ddl.h"
#include "core/ddl/declared_shape.h"
#include "core/ddl/lens_deploy.h"
#include "core/ddl/schema_diff_constraints.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/parser/ddl_printer.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/parser/rename_walk.h"
#include "core/planner/dml_binder.h"

namespace optic {

namespace {

using RenamePolicy = SchemaDiffOptions::RenamePolicy;

std::optional<std::string> tagText(const ast::Tags& tags, const char* key) {
  for (const ast::Tag& t : tags) {
    if (lowerName(t.key) == key && !t.value.isNull()) return toText(t.value);
  }
  return std::nullopt;
}

// `quereus.previous_name = 'a, b'`: every earlier name, trimmed.
std::vector<std::string> previousNames(const ast::Tags& tags) {
  std::optional<std::string> text = tagText(tags, kPreviousNameTag);
  return text ? splitNameList(*text) : std::vector<std::string>{};
}

bool hasRenameHint(const ast::Tags& tags) { return tagText(tags, kIdTag) || tagText(tags, kPreviousNameTag); }

// Tags as compared for drift: the rename hints are instructions to the differ, not state.
std::string driftTags(const ast::Tags& tags) {
  ast::Tags kept;
  for (const ast::Tag& t : tags) {
    std::string k = lowerName(t.key);
    if (k != kIdTag && k != kPreviousNameTag) kept.push_back(t);
  }
  return printTagsClause(kept);
}

std::string keyNames(const TableSchema& t, const std::vector<KeyColumn>& key) {
  std::string out;
  for (const KeyColumn& k : key) out += (out.empty() ? "" : ", ") + printIdent(t.columns[k.column].name) + (k.desc ? " desc" : "");
  return out;
}

std::string exprText(const ast::Expr* e) { return e ? printExpr(*e) : ""; }

// The migration under construction: one bucket per phase, emitted in phase order.
enum Phase : uint8_t {
  kRenameTables, kDropAssertions, kDropTables, kDropViews, kDropMaterializedViews, kDropIndexes, kCreateTables,
  kCreateViews, kCreateMaterializedViews, kCreateIndexes, kAlterTables, kReattach, kCreateAssertions, kPhaseCount
};

class Differ {
 public:
  Differ(Context& ctx, const DeclaredSchema& d, const SchemaDiffOptions& o)
      : ctx_(ctx), decl_(d), options_(o), key_(lowerName(d.name)) {
    displayPrefix_ = key_ == "main" ? "" : printIdent(d.name) + ".";
    execPrefix_ = printIdent(key_) + ".";
    actual_ = ctx.catalog().findSchema(key_);
  }

  std::vector<MigrationStep> run() {
    for (const ast::CreateTable* ct : decl_.tables) validateCreateTableTags(*ct);
    for (const ast::CreateView* cv : decl_.views) validateReservedTags(cv->tags, TagSite::kViewDdl);
    for (const ast::CreateIndex* ci : decl_.indexes) validateReservedTags(ci->tags, TagSite::kIndex);
    pairTables();
    diffAssertions();
    dropTables();
    diffViews();
    diffMaterializedViews();
    diffIndexes();
    createTables();
    for (const auto& [declared, actual] : tablePairs_) alterTable(*declared, *actual);
    std::vector<MigrationStep> out;
    for (auto& bucket : buckets_) {
      for (MigrationStep& s : bucket) out.push_back(std::move(s));
    }
    return out;
  }

 private:
  using Printer = std::function<std::string(const std::string& prefix)>;

  void emit(Phase p, const Printer& print) { buckets_[p].push_back(MigrationStep{print(displayPrefix_), print(execPrefix_)}); }

  std::vector<std::shared_ptr<Table>> actualTables(bool maintained) const {
    std::vector<std::shared_ptr<Table>> out;
    if (!actual_) return out;
    for (const auto& [k, t] : actual_->tables) {
      if ((t->schema().derivation != nullptr) == maintained) out.push_back(t);
    }
    return out;
  }

  // ---- tables -------------------------------------------------------------------------------

  void pairTables() {
    std::vector<std::shared_ptr<Table>> actual = actualTables(false);
    std::set<const Table*> claimed;
    auto byName = [&](const std::string& name) -> std::shared_ptr<Table> {
      for (const auto& t : actual) {
        if (lowerName(t->schema().name) == lowerName(name) && !claimed.count(t.get())) return t;
      }
      return nullptr;
    };
    bool useHints = options_.renamePolicy != RenamePolicy::kDeny;
    std::vector<const ast::CreateTable*> unhintedCreates;
    for (const ast::CreateTable* ct : decl_.tables) {
      std::shared_ptr<Table> match;
      std::optional<std::string> id = useHints ? tagText(ct->tags, kIdTag) : std::nullopt;
      if (id) {
        for (const auto& t : actual) {
          if (!claimed.count(t.get()) && tagText(t->schema().tags, kIdTag) == id) match = t;
        }
      }
      if (!match) match = byName(ct->name.name);
      if (match && useHints && !id && lowerName(match->schema().name) == lowerName(ct->name.name)) {
        for (const std::string& prev : previousNames(ct->tags)) {
          if (lowerName(prev) != lowerName(ct->name.name) && byName(prev)) {
            fail("Rename conflict for table '" + ct->name.name + "': both '" + ct->name.name + "' and its previous name '" +
                 prev + "' exist");
          }
        }
      }
      if (!match && useHints) {
        for (const std::string& prev : previousNames(ct->tags)) {
          if ((match = byName(prev))) break;
        }
      }
      if (!match) {
        tableCreates_.push_back(ct);
        if (!hasRenameHint(ct->tags)) unhintedCreates.push_back(ct);
        continue;
      }
      claimed.insert(match.get());
      tablePairs_.emplace_back(ct, match);
      std::vector<int> cols = pairColumns(*ct, match->schema());
      for (size_t i = 0; i < cols.size(); ++i) {
        const std::string& live = cols[i] >= 0 ? match->schema().columns[cols[i]].name : ct->columns[i].name;
        if (lowerName(live) != lowerName(ct->columns[i].name)) columnRenames_[lowerName(ct->name.name)][lowerName(ct->columns[i].name)] = live;
      }
      newTableName_[lowerName(match->schema().name)] = ct->name.name;
      if (lowerName(match->schema().name) != lowerName(ct->name.name)) tableRenames_.emplace_back(match->schema().name, ct->name.name);
      if (match->schema().name != ct->name.name) {
        std::string from = match->schema().name;
        emit(kRenameTables, [from, to = ct->name.name](const std::string& p) {
          return "ALTER TABLE " + p + printIdent(from) + " RENAME TO " + printIdent(to);
        });
      }
    }
    for (const auto& t : actual) {
      if (!claimed.count(t.get())) tableDrops_.push_back(t);
    }
    if (options_.renamePolicy == RenamePolicy::kRequireHint && !tableDrops_.empty() && !unhintedCreates.empty()) {
      fail("Table '" + unhintedCreates.front()->name.name + "' would replace table '" + tableDrops_.front()->schema().name +
           "' without a rename hint; rename_policy = 'require-hint' needs a quereus.previous_name or quereus.id tag");
    }
  }

  // Drops, children first: a table goes once no other dropped table references it.
  void dropTables() {
    std::vector<std::shared_ptr<Table>> left = tableDrops_;
    while (!left.empty()) {
      auto referenced = [&](const Table& t) {
        for (const auto& other : left) {
          if (other.get() == &t) continue;
          for (const ForeignKey& fk : other->schema().foreignKeys) {
            if ((fk.parentSchema.empty() || fk.parentSchema == key_) && lowerName(fk.parentTable) == lowerName(t.schema().name)) {
              return true;
            }
          }
        }
        return false;
      };
      auto next = std::find_if(left.begin(), left.end(), [&](const auto& t) { return !referenced(*t); });
      if (next == left.end()) next = left.begin();  // a reference cycle: any order drops them all
      std::string name = (*next)->schema().name;
      emit(kDropTables, [name](const std::string& p) { return "DROP TABLE IF EXISTS " + p + printIdent(name); });
      left.erase(next);
    }
  }

  // Creates, parents first (declaration order otherwise).
  void createTables() {
    std::vector<const ast::CreateTable*> left = tableCreates_;
    std::set<std::string> pending;
    for (const ast::CreateTable* ct : left) pending.insert(lowerName(ct->name.name));
    auto parents = [](const ast::CreateTable& ct) {
      std::vector<std::string> out;
      for (const ast::ColumnDef& cd : ct.columns) {
        for (const ast::ColumnConstraint& cc : cd.constraints) {
          if (cc.fk) out.push_back(lowerName(cc.fk->parent.name));
        }
      }
      for (const ast::TableConstraint& tc : ct.constraints) {
        if (tc.fk) out.push_back(lowerName(tc.fk->parent.name));
      }
      return out;
    };
    while (!left.empty()) {
      auto ready = std::find_if(left.begin(), left.end(), [&](const ast::CreateTable* ct) {
        for (const std::string& p : parents(*ct)) {
          if (p != lowerName(ct->name.name) && pending.count(p)) return false;
        }
        return true;
      });
      if (ready == left.end()) ready = left.begin();
      const ast::CreateTable* ct = *ready;
      std::string module = decl_.defaultModule;
      emit(kCreateTables, [ct, module](const std::string& p) { return printCreateTable(*ct, p, module); });
      pending.erase(lowerName(ct->name.name));
      left.erase(ready);
    }
  }

  // Declared column i -> live column index (-1: added): by name, then by previous-name hint.
  std::vector<int> pairColumns(const ast::CreateTable& ct, const TableSchema& a) const {
    std::vector<int> actualOf(ct.columns.size(), -1);
    std::vector<bool> claimed(a.columns.size(), false);
    for (size_t i = 0; i < ct.columns.size(); ++i) {
      int j = a.findColumn(ct.columns[i].name);
      if (j >= 0 && !claimed[j]) {
        actualOf[i] = j;
        claimed[j] = true;
      }
    }
    for (size_t i = 0; i < ct.columns.size(); ++i) {
      if (actualOf[i] >= 0 || options_.renamePolicy == RenamePolicy::kDeny) continue;
      for (const std::string& prev : previousNames(ct.columns[i].tags)) {
        int j = a.findColumn(prev);
        if (j >= 0 && !claimed[j]) {
          actualOf[i] = j;
          claimed[j] = true;
          break;
        }
      }
    }
    return actualOf;
  }

  // The live name of a declared column while the migration's creates run (RENAME COLUMN comes
  // after them): the previous name for a column this diff renames, else the name itself.
  std::string liveColumnName(const std::string& table, const std::string& column) const {
    auto t = columnRenames_.find(lowerName(table));
    if (t == columnRenames_.end()) return column;
    auto c = t->second.find(lowerName(column));
    return c == t->second.end() ? column : c->second;
  }

  // The ALTERs that turn the live table into the declared one.
  void alterTable(const ast::CreateTable& ct, const Table& actualTable) {
    const TableSchema& a = actualTable.schema();
    std::shared_ptr<TableSchema> d = buildTableSchema(ctx_, ct, key_, decl_.keepAlive);
    std::string table = ct.name.name;
    auto alter = [&](const std::string& rest) {
      emit(kAlterTables, [table, rest](const std::string& p) { return "ALTER TABLE " + p + printIdent(table) + " " + rest; });
    };
    std::vector<int> actualOf = pairColumns(ct, a);
    std::vector<bool> claimed(a.columns.size(), false);
    for (size_t i = 0; i < actualOf.size(); ++i) {
      if (actualOf[i] < 0) continue;
      claimed[actualOf[i]] = true;
      if (lowerName(a.columns[actualOf[i]].name) != lowerName(d->columns[i].name)) {
        alter("RENAME COLUMN " + printIdent(a.columns[actualOf[i]].name) + " TO " + printIdent(d->columns[i].name));
      }
    }
    for (size_t i = 0; i < d->columns.size(); ++i) {
      if (actualOf[i] < 0) alter("ADD COLUMN " + printColumnDef(ct.columns[i]));
    }
    for (size_t i = 0; i < d->columns.size(); ++i) {
      if (actualOf[i] >= 0) alterColumn(d->columns[i], ct.columns[i], a.columns[actualOf[i]], alter);
    }
    // Named constraints: renames and drops free their names before the key change and the adds.
    ConstraintDiff cons = diffNamedConstraints(ct, a, options_.renamePolicy != RenamePolicy::kDeny);
    if (options_.renamePolicy == RenamePolicy::kRequireHint && !cons.adds.empty() && !cons.drops.empty()) {
      fail("rename_policy = 'require-hint': constraint (" + a.name + ") drops and creates both present (" +
           std::to_string(cons.drops.size()) + " drop / " + std::to_string(cons.adds.size()) +
           " create); add 'quereus.previous_name' or 'quereus.id' to hint renames, or use 'allow' / 'deny'.");
    }
    for (const auto& [from, to] : cons.renames) alter("RENAME CONSTRAINT " + printIdent(from) + " TO " + printIdent(to));
    for (const std::string& name : cons.drops) alter("DROP CONSTRAINT " + printIdent(name));
    if (d->pkDeclared || a.pkDeclared) {
      std::vector<std::string> want, have;
      for (const KeyColumn& k : d->primaryKey) want.push_back(lowerName(d->columns[k.column].name) + (k.desc ? " desc" : ""));
      for (const KeyColumn& k : a.primaryKey) {
        std::string name = a.columns[k.column].name;
        for (size_t i = 0; i < actualOf.size(); ++i) {
          if (actualOf[i] == k.column) name = d->columns[i].name;
        }
        have.push_back(lowerName(name) + (k.desc ? " desc" : ""));
      }
      if (want != have) alter("ALTER PRIMARY KEY (" + keyNames(*d, d->primaryKey) + ")");
    }
    for (const std::string& fragment : cons.adds) alter("ADD " + fragment);
    for (size_t j = 0; j < a.columns.size(); ++j) {
      if (!claimed[j]) alter("DROP COLUMN " + printIdent(a.columns[j].name));
    }
    // Tags last, on the post-structural names: whole-set replacements.
    if (tagsDrifted(ct.tags, a.tags)) alter("SET TAGS " + printTagList(ct.tags));
    for (size_t i = 0; i < actualOf.size(); ++i) {
      if (actualOf[i] >= 0 && tagsDrifted(ct.columns[i].tags, a.columns[actualOf[i]].tags)) {
        alter("ALTER COLUMN " + printIdent(d->columns[i].name) + " SET TAGS " + printTagList(ct.columns[i].tags));
      }
    }
    for (const auto& [name, tags] : cons.retags) alter("ALTER CONSTRAINT " + printIdent(name) + " SET TAGS " + printTagList(tags));
  }

  void alterColumn(const ColumnSchema& want, const ast::ColumnDef& def, const ColumnSchema& have,
                   const std::function<void(const std::string&)>& alter) {
    std::string col = "ALTER COLUMN " + printIdent(want.name) + " ";
    bool retype = want.type != have.type;
    bool recollate = want.collation != have.collation;
    std::string typeName = def.typeName.empty() ? std::string(logicalTypeName(want.type)) : def.typeName;
    // SET DATA TYPE keeps the current collation, and only TEXT takes a non-BINARY one:
    // narrowing to a non-text type drops the collation first, widening retypes first.
    if (retype && recollate && want.type != LogicalType::kText) {
      alter(col + "SET COLLATE " + std::string(collationName(want.collation)));
      recollate = false;
    }
    if (retype) alter(col + "SET DATA TYPE " + typeName);
    if (recollate) alter(col + "SET COLLATE " + std::string(collationName(want.collation)));
    if (want.notNull != have.notNull) alter(col + (want.notNull ? "SET NOT NULL" : "DROP NOT NULL"));
    if (exprText(want.defaultExpr) != exprText(have.defaultExpr)) {
      alter(want.defaultExpr ? col + "SET DEFAULT " + printDefaultValue(*want.defaultExpr) : col + "DROP DEFAULT");
    }
  }

  // The declared name a live table will have once the renames ran.
  std::string renamedTable(const std::string& actualName) const {
    auto it = newTableName_.find(lowerName(actualName));
    return it == newTableName_.end() ? actualName : it->second;
  }

  // ---- views, materialized views, indexes, assertions ---------------------------------------

  static std::string viewShape(const std::vector<std::string>& columns, const ast::Select& body,
                               const std::vector<ast::ViewColumnDefault>* defaults, const ast::Tags& tags) {
    std::string cols;
    for (const std::string& c : columns) cols += lowerName(c) + ",";
    return cols + "|" + printSelect(body) + (defaults ? printViewDefaults(*defaults) : "") + driftTags(tags);
  }

  // The declared view under the names the catalog has before this diff's renames run: the
  // columns the diff renames under their live names, and (withTables) the tables too. A view
  // create runs after the table renames but before RENAME COLUMN, so it needs the columns only;
  // the drift compare against the live view needs both.
  std::shared_ptr<const ast::Statement> liveNamed(const ast::CreateView& cv, bool withTables) const {
    std::vector<ast::StatementPtr> parsed = parseSql(printCreateView(cv, ""));
    std::shared_ptr<ast::Statement> stmt(std::move(parsed.at(0)));
    ast::CreateView& copy = *stmt->createView;
    for (const auto& [table, columns] : columnRenames_) {
      for (const auto& [declared, live] : columns) {
        renameColumnInSelect(*copy.select, key_, key_, table, declared, live);
        for (ast::ViewColumnDefault& d : copy.defaults) {
          if (lowerName(d.column) == declared && readsTable(*copy.select, key_, key_, table)) d.column = live;
        }
      }
    }
    if (withTables) {
      for (const auto& [live, declared] : tableRenames_) renameTableInSelect(*copy.select, key_, key_, declared, live);
    }
    return stmt;
  }

  // The FROM tables of a query in reading order (joins, subqueries and compound legs included).
  static void fromTables(ast::Select& s, std::vector<ast::FromItem*>& out) {
    if (s.left) fromTables(*s.left, out);
    if (s.right) fromTables(*s.right, out);
    std::function<void(ast::FromItem&)> walk = [&](ast::FromItem& f) {
      if (f.kind == ast::FromItem::Kind::kTable) out.push_back(&f);
      if (f.select) fromTables(*f.select, out);
      if (f.left) walk(*f.left);
      if (f.right) walk(*f.right);
    };
    if (s.from) walk(*s.from);
  }

  // The live body without the schema qualifiers rename propagation pinned onto it: a live FROM
  // table `s.t` where the declared body reads a bare `t` at the same place is the pin a rename
  // left (the body was qualified so it kept reading the same table), not an edit of the body.
  // The other way round, a declared source aliased by its own (live) name where the live body
  // has no alias (`from t2 as t` declared, `from t` live, the diff renaming t to t2) is the alias
  // the rename pins to keep the old qualifier bound: `declared` loses it.
  static ast::SelectPtr unpinned(const ast::Select& live, ast::Select& declared) {
    ast::SelectPtr copy = ast::clone(live);
    std::vector<ast::FromItem*> have, want;
    fromTables(*copy, have);
    fromTables(declared, want);
    if (have.size() != want.size()) return copy;
    for (size_t i = 0; i < have.size(); ++i) {
      if (lowerName(have[i]->table.name) != lowerName(want[i]->table.name)) continue;
      if (!have[i]->table.schema.empty() && want[i]->table.schema.empty()) have[i]->table.schema.clear();
      if (have[i]->alias.empty() && lowerName(want[i]->alias) == lowerName(want[i]->table.name)) {
        want[i]->alias.clear();
        want[i]->table.schema.clear();
        have[i]->table.schema.clear();
      }
    }
    return copy;
  }

  // The live view is the declared one: same columns, tags and body (read under the table names
  // the live catalog uses, or as written — a bare name the diff's own table rename would re-bind
  // is not an edit of the body), pins aside.
  static bool sameView(const ViewSchema& live, const ast::CreateView& c) {
    ast::SelectPtr have = unpinned(*live.select, *c.select);  // first: it may drop a pin alias of c's
    return viewShape(live.columnNames, *have, live.defaults, live.tags) == viewShape(c.columns, *c.select, &c.defaults, c.tags);
  }

  void diffViews() {
    std::set<std::string> kept;
    for (const ast::CreateView* cv : decl_.views) {
      std::shared_ptr<const ViewSchema> live = actual_ ? ctx_.catalog().findView(key_, cv->name.name) : nullptr;
      if (live && (sameView(*live, *liveNamed(*cv, true)->createView) || sameView(*live, *liveNamed(*cv, false)->createView))) {
        kept.insert(lowerName(cv->name.name));
        continue;
      }
      std::shared_ptr<const ast::Statement> create = liveNamed(*cv, false);
      emit(kCreateViews, [create](const std::string& p) { return printCreateView(*create->createView, p); });
    }
    if (!actual_) return;
    for (const auto& [k, v] : actual_->views) {
      if (kept.count(k)) continue;
      std::string name = v->name;
      emit(kDropViews, [name](const std::string& p) { return "DROP VIEW IF EXISTS " + p + printIdent(name); });
    }
  }

  void diffMaterializedViews() {
    std::set<std::string> kept;
    for (const ast::Statement* s : decl_.materializedViews) {
      if (!s->createView) fail(ErrorCode::kUnsupported, "not supported yet: `table … maintained as` in declare schema");
      const ast::CreateView& cv = *s->createView;
      std::shared_ptr<Table> live = ctx_.catalog().findTable(key_, cv.name.name);
      if (!live || !live->schema().derivation) {
        emit(kCreateMaterializedViews, [&cv](const std::string& p) { return printCreateView(cv, p); });
        continue;
      }
      kept.insert(lowerName(cv.name.name));
      const MaterializedView& mv = *live->schema().derivation;
      // A declared column list names the backing table's columns; without one only the body counts.
      std::shared_ptr<const ast::Statement> asLive = liveNamed(cv, true);
      std::string want = viewShape(cv.columns, *asLive->createView->select, nullptr, {});
      std::string have;
      if (!cv.columns.empty()) {
        for (const ColumnSchema& c : live->schema().columns) have += lowerName(c.name) + ",";
      }
      have += "|" + mv.bodyText;
      // A declared schema (column definitions, keys, CHECKs, foreign keys) is part of the view.
      std::string wantDefs = cv.declared ? declaredDefinitions(cv) : "";
      std::string haveDefs = mv.schemaDeclared ? materializedColumnDefinitions(live->schema()) : "";
      if (want == have && wantDefs == haveDefs) continue;
      std::string name = cv.name.name;
      if (wantDefs != haveDefs) {
        if (cv.declared) {  // the declaration replaces the live one (create or replace keeps dependents)
          emit(kReattach, [&cv](const std::string& p) { return printCreateView(cv, p, true); });
        } else {  // a replacement without a column list would inherit the live declaration
          emit(kDropMaterializedViews, [name](const std::string& p) { return "DROP MATERIALIZED VIEW IF EXISTS " + p + printIdent(name); });
          emit(kCreateMaterializedViews, [&cv](const std::string& p) { return printCreateView(cv, p); });
        }
        continue;
      }
      emit(kReattach, [&cv, name](const std::string& p) {
        std::string cols;
        for (const std::string& c : cv.columns) cols += (cols.empty() ? "" : ", ") + printIdent(c);
        return "alter table " + p + printIdent(name) + " set maintained" + (cols.empty() ? "" : " (" + cols + ")") + " as " +
               printSelect(*cv.select);
      });
    }
    for (const auto& t : actualTables(true)) {
      if (kept.count(lowerName(t->schema().name))) continue;
      std::string name = t->schema().name;
      emit(kDropMaterializedViews, [name](const std::string& p) { return "DROP MATERIALIZED VIEW IF EXISTS " + p + printIdent(name); });
    }
  }

  // A declared view's definitions as the live view's would print (materializedColumnDefinitions).
  std::string declaredDefinitions(const ast::CreateView& cv) const {
    DeclaredMvSchema d = declaredFromDefinitions(ctx_, cv, key_, nullptr);
    return declaredColumnDefinitions(*d.table, d.keys);
  }

  std::string declaredIndexShape(const ast::CreateIndex& ci) const {
    std::string out = lowerName(ci.table.name) + (ci.unique ? "|u|" : "|n|");
    for (const ast::IndexedColumn& ic : ci.columns) {
      out += lowerName(liveColumnName(ci.table.name, ic.name)) + (ic.desc ? " desc," : ",");
    }
    return out + "|" + exprText(ci.where.get()) + driftTags(ci.tags);
  }

  std::string liveIndexShape(const TableSchema& t, const IndexSchema& ix) const {
    std::string out = lowerName(renamedTable(t.name)) + (ix.unique ? "|u|" : "|n|");
    for (const KeyColumn& k : ix.columns) out += lowerName(t.columns[k.column].name) + (k.desc ? " desc," : ",");
    return out + "|" + exprText(ix.where) + driftTags(ix.tags);
  }

  void diffIndexes() {
    std::map<std::string, std::pair<const TableSchema*, const IndexSchema*>> live;
    for (const auto& t : actualTables(false)) {
      for (const IndexSchema& ix : t->schema().indexes) {
        if (!ix.implicit) live[lowerName(ix.name)] = {&t->schema(), &ix};
      }
    }
    std::set<std::string> kept;
    for (const ast::CreateIndex* ci : decl_.indexes) {
      auto it = live.find(lowerName(ci->name.name));
      if (it != live.end() && liveIndexShape(*it->second.first, *it->second.second) == declaredIndexShape(*ci)) {
        kept.insert(it->first);
        continue;
      }
      std::vector<std::string> cols;
      for (const ast::IndexedColumn& ic : ci->columns) cols.push_back(liveColumnName(ci->table.name, ic.name));
      emit(kCreateIndexes, [ci, cols](const std::string& p) { return printCreateIndex(*ci, p, &cols); });
    }
    for (const auto& [k, entry] : live) {
      if (kept.count(k)) continue;
      std::string name = entry.second->name;
      emit(kDropIndexes, [name](const std::string& p) { return "DROP INDEX IF EXISTS " + p + printIdent(name); });
    }
  }

  void diffAssertions() {
    std::set<std::string> kept;
    for (const ast::CreateAssertion* ca : decl_.assertions) {
      std::shared_ptr<const AssertionSchema> live;
      if (actual_) {
        auto it = actual_->assertions.find(lowerName(ca->name.name));
        if (it != actual_->assertions.end()) live = it->second;
      }
      if (live && live->checkText == printExpr(*ca->check)) {
        kept.insert(lowerName(ca->name.name));
        continue;
      }
      emit(kCreateAssertions, [ca](const std::string& p) { return printCreateAssertion(*ca, p); });
    }
    if (!actual_) return;
    for (const auto& [k, a] : actual_->assertions) {
      if (kept.count(k)) continue;
      std::string name = a->name;
      emit(kDropAssertions, [name](const std::string& p) { return "DROP ASSERTION IF EXISTS " + p + printIdent(name); });
    }
  }

  Context& ctx_;
  const DeclaredSchema& decl_;
  SchemaDiffOptions options_;
  std::string key_;
  std::string displayPrefix_;
  std::string execPrefix_;
  Schema* actual_ = nullptr;
  std::vector<MigrationStep> buckets_[kPhaseCount];
  std::vector<std::pair<const ast::CreateTable*, std::shared_ptr<Table>>> tablePairs_;
  std::vector<const ast::CreateTable*> tableCreates_;
  std::vector<std::shared_ptr<Table>> tableDrops_;
  std::map<std::string, std::string> newTableName_;  // lower-case live name -> declared name
  std::vector<std::pair<std::string, std::string>> tableRenames_;  // {live name, declared name}
  // declared table -> declared column -> live column name, for the columns this diff renames
  std::map<std::string, std::map<std::string, std::string>> columnRenames_;
};

SchemaDiffOptions optionsOf(const ast::SchemaCommand& cmd) {
  SchemaDiffOptions o;
  for (const auto& [key, value] : cmd.options) {
    if (key == "allow_destructive") {
      o.allowDestructive = value.kind() == ValueKind::kBoolean && value.asBool();
    } else if (key == "rename_policy") {
      std::string p = lowerName(toText(value));
      if (p == "allow") o.renamePolicy = RenamePolicy::kAllow;
      else if (p == "require-hint") o.renamePolicy = RenamePolicy::kRequireHint;
      else if (p == "deny") o.renamePolicy = RenamePolicy::kDeny;
      else fail("Invalid rename_policy '" + toText(value) + "': expected 'allow', 'require-hint' or 'deny'");
    } else {
      fail("Unsupported apply schema option '" + key + "'");
    }
  }
  return o;
}

const DeclaredSchema& declarationOf(Context& ctx, const std::string& schema) {
  std::shared_ptr<const DeclaredSchema> d = ctx.declaredSchemas().find(schema);
  if (!d) fail(ErrorCode::kNotFound, "No declared schema '" + schema + "' (declare schema " + schema + " { … } first)");
  return *d;
}

void runDdl(Context& ctx, const std::string& sql) {
  std::vector<ast::StatementPtr> stmts = parseSql(sql);
  for (ast::StatementPtr& s : stmts) executeDdl(ctx, std::shared_ptr<const ast::Statement>(std::move(s)));
}

// `insert into s.t [(cols)] values … on conflict (<pk>) do nothing`: a re-seed leaves rows that
// are already there (user edits included) alone, and any other conflict still fails.
std::string seedInsert(Context& ctx, const std::string& schema, const ast::Seed& seed) {
  std::shared_ptr<Table> table = ctx.catalog().findTable(schema, seed.table.name);
  if (!table) fail(ErrorCode::kNotFound, "Seed table '" + seed.table.name + "' is not declared in schema '" + schema + "'");
  const TableSchema& t = table->schema();
  std::string sql = "insert into " + printIdent(schema) + "." + printIdent(t.name);
  if (!seed.columns.empty()) {
    std::string cols;
    for (const std::string& c : seed.columns) cols += (cols.empty() ? "" : ", ") + printIdent(c);
    sql += " (" + cols + ")";
  }
  std::string rows;
  for (const auto& row : seed.rows) {
    std::string vals;
    for (const ast::ExprPtr& e : row) vals += (vals.empty() ? "" : ", ") + printExpr(*e);
    rows += (rows.empty() ? "" : ", ") + ("(" + vals + ")");
  }
  sql += " values " + rows;
  std::string pk;
  for (const KeyColumn& k : t.primaryKey) pk += (pk.empty() ? "" : ", ") + printIdent(t.columns[k.column].name);
  if (!pk.empty()) sql += " on conflict (" + pk + ") do nothing";
  return sql;
}

void runSeed(Context& ctx, const std::string& sql) {
  std::vector<ast::StatementPtr> stmts = parseSql(sql);
  std::shared_ptr<const ast::Statement> stmt(std::move(stmts.at(0)));
  Binder binder(ctx);
  std::unique_ptr<DmlPlan> plan = bindInsert(binder, *stmt->insert);
  std::vector<Value> params;
  ExecState state;
  state.ctx = &ctx;
  state.params = &params;
  state.fn.randomState = ctx.randomState();
  state.fn.ctx = &ctx;
  state.runId = ctx.nextRunId();
  plan->execute(state);
}

}  // namespace

void executeDeclareSchema(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  std::shared_ptr<const DeclaredSchema> d = buildDeclaredSchema(std::move(stmt));
  std::string name = d->name;
  DeclaredSchemas& registry = ctx.declaredSchemas();
  std::shared_ptr<const DeclaredSchema> previous = registry.put(std::move(d));
  ctx.txn().recordUndo([&registry, name, previous] { registry.restore(name, previous); });
}

std::vector<MigrationStep> diffSchema(Context& ctx, const DeclaredSchema& declared, const SchemaDiffOptions& options) {
  return Differ(ctx, declared, options).run();
}

void applySchema(Context& ctx, const DeclaredSchema& declared, const SchemaDiffOptions& options, bool withSeed) {
  if (ctx.settings().strictDdlTransactions && ctx.inExplicitTransaction()) {
    fail("apply schema is refused inside an explicit transaction under ddl_transaction_policy = strict");
  }
  std::vector<MigrationStep> steps = diffSchema(ctx, declared, options);
  std::string key = lowerName(declared.name);
  ensureSchema(ctx, key);
  for (const MigrationStep& s : steps) runDdl(ctx, s.exec);
  if (!withSeed) return;
  for (const ast::Seed* seed : declared.seeds) {
    if (!seed->rows.empty()) runSeed(ctx, seedInsert(ctx, key, *seed));
  }
}

std::string declaredSchemaHash(const DeclaredSchema& declared) {
  std::string text;
  for (const ast::StatementPtr& item : declared.keepAlive->declareSchema->items) {
    switch (item->kind) {
      case ast::StatementKind::kCreateTable: text += printCreateTable(*item->createTable, "", declared.defaultModule); break;
      case ast::StatementKind::kCreateIndex: text += printCreateIndex(*item->createIndex, ""); break;
      case ast::StatementKind::kCreateView: text += printCreateView(*item->createView, ""); break;
      case ast::StatementKind::kCreateAssertion: text += printCreateAssertion(*item->createAssertion, ""); break;
      default: continue;
    }
    text += ";\n";
  }
  return textDigest(text);
}

std::vector<std::string> schemaCommandColumns(const ast::SchemaCommand& cmd) {
  switch (cmd.kind) {
    case ast::SchemaCommand::Kind::kDiff: return {"ddl"};
    case ast::SchemaCommand::Kind::kExplain: return {"info"};
    case ast::SchemaCommand::Kind::kApply: break;
  }
  return {};
}

std::vector<Row> executeSchemaCommand(Context& ctx, const ast::SchemaCommand& cmd) {
  const DeclaredSchema& d = declarationOf(ctx, cmd.schema);
  std::vector<Row> rows;
  switch (cmd.kind) {
    case ast::SchemaCommand::Kind::kDiff:
      if (d.logical) break;  // a logical schema has no DDL of its own: `apply` redeploys its lens
      for (const MigrationStep& s : diffSchema(ctx, d, optionsOf(cmd))) rows.push_back(Row{Value::text(s.ddl)});
      break;
    case ast::SchemaCommand::Kind::kExplain:
      rows.push_back(Row{Value::text(declaredSchemaHash(d))});
      break;
    case ast::SchemaCommand::Kind::kApply:
      if (!cmd.toVersion.empty() && !d.version.empty() && cmd.toVersion != d.version) {
        fail("apply schema " + cmd.schema + " to version '" + cmd.toVersion + "': the declaration is version '" + d.version + "'");
      }
      if (d.logical) deployLogicalSchema(ctx, d);
      else applySchema(ctx, d, optionsOf(cmd), cmd.withSeed);
      break;
  }
  return rows;
}

}  // namespace optic
