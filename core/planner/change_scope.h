// Change scope: the static, conservative description of what a statement reads
// (api-and-watch.md §4), and the recorder the binder fills while it binds.
//
// The binder reports every base-table reference it binds (views are inlined, so a view read
// reports its base tables), every column name it resolves against a base-table reference, the
// primary-key equalities of a single-table WHERE (literal or parameter values), every parameter
// occurrence and every non-deterministic function call. buildChangeScope turns that record into
// a ChangeScope. A ChangeScope is plain data; canonicalize() puts it in the one canonical form
// (watches sorted by schema, table, kind and scope text; value tuples sorted and deduplicated;
// non-deterministic sources and parameters sorted and deduplicated), so two scopes describing
// the same constraints compare equal.
//
// Invariant: the description never says less than the statement may read. Whatever the
// analysis cannot pin degrades to a `full` watch on the table.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/common/json.h"
#include "core/common/value.h"

namespace optic {

class Table;
namespace ast {
struct Expr;
}

// A parameter's name: its 1-based position, or its name without the sigil.
using ParamIndex = std::variant<int64_t, std::string>;

struct PortableScalarType {
  std::string typeName = "ANY";  // logical type name, upper case
  bool nullable = true;
  std::string collationName;  // "" = none given
  bool operator==(const PortableScalarType&) const = default;
};

struct ParamScopeValue {
  ParamIndex index;
  PortableScalarType type;
  bool operator==(const ParamScopeValue&) const = default;
};

// A literal value or a parameter placeholder.
struct ScopeValue {
  std::optional<ParamScopeValue> param;  // set: a placeholder; else `value`
  Value value;
  static ScopeValue literal(Value v) { return ScopeValue{std::nullopt, std::move(v)}; }
  static ScopeValue placeholder(ParamScopeValue p) { return ScopeValue{std::move(p), Value()}; }
};

enum class WatchKind : uint8_t { kFull, kRows, kGroups, kRowsByGroup };

struct WatchScope {
  WatchKind kind = WatchKind::kFull;
  std::vector<std::string> columns;              // `key` (rows) or `groupBy` (groups, rowsByGroup)
  std::vector<std::vector<ScopeValue>> values;   // rows, rowsByGroup
};

struct TableWatch {
  std::string schema;  // lower-cased
  std::string table;   // lower-cased
  bool allColumns = true;
  std::set<std::string> columns;  // lower-cased; meaningful when !allColumns
  WatchScope scope;
};

struct NonDetSource {
  enum class Kind : uint8_t { kTime, kRandom, kVolatileUdf, kParameter };
  Kind kind = Kind::kTime;
  std::string name;   // kVolatileUdf
  ParamIndex index;   // kParameter
};

struct ChangeScope {
  std::vector<TableWatch> watches;
  std::vector<NonDetSource> nonDeterministicSources;
  std::vector<ParamIndex> unboundParameters;
};

// ---- JSON ------------------------------------------------------------------------------------
// The live shape of §4: `columns` is "all" or a sorted array, literal values are JSON values,
// placeholders are {"kind":"param","index":…,"type":{…}}.
Json changeScopeToJson(const ChangeScope& s);
Json tableWatchToJson(const TableWatch& w);
// The wire form (serializeChangeScope): literals as {"v": x}, placeholders as
// {"p": index, "t": {typeName, nullable, collationName?}}. Integers beyond ±(2^53−1) are
// {"v": {"$bigint": "…"}}, blobs {"v": {"$blob": "hex"}} so the form round-trips exactly.
Json serializeChangeScope(const ChangeScope& s);
// Throws optic::Error (MISUSE) on a malformed document.
ChangeScope deserializeChangeScope(const Json& j);
// A SQL value as the JSON the JS layer decodes (the same encoding as the wire form's "v").
Json scopeValueToJson(const Value& v);
Value scopeValueFromJson(const Json& j);

// ---- helpers ---------------------------------------------------------------------------------
void canonicalize(ChangeScope& s);
// Replaces the placeholders of bound parameters (`bound` maps an index to its value) with
// literals and drops those indices from unboundParameters and the parameter sources.
ChangeScope bindParameters(const ChangeScope& s, const std::map<ParamIndex, Value>& bound);
ChangeScope unionScopes(const ChangeScope& a, const ChangeScope& b);
ChangeScope intersectScopes(const ChangeScope& a, const ChangeScope& b);
bool isEmpty(const ChangeScope& s);
bool describesEverything(const ChangeScope& s);
// 6-character base32 djb2 digest of the canonical serialization (Subscription ids).
std::string scopeHash(const ChangeScope& s);
// Time-ish and random builtins (§4); any other non-deterministic call is a volatile UDF.
NonDetSource nonDetSourceOf(const std::string& functionName);

// ---- what the binder records ---------------------------------------------------------------

// One base-table reference of the statement.
struct TableRead {
  std::shared_ptr<Table> table;
  std::set<int> columns;  // column indexes resolved against the reference
  bool allColumns = false;  // `*` served the whole row
  // Primary-key pins from the reference's own WHERE: per key column (in key order), the
  // alternative values. Empty = not pinned. A value is a literal, or a parameter slot.
  struct Pinned {
    Value literal;
    const ast::Expr* param = nullptr;  // a parameter node; resolved to `slot` by finish()
    int slot = 0;                      // > 0: parameter slot
  };
  std::vector<std::vector<Pinned>> keyPins;
};

class ReadRecorder {
 public:
  int addTable(std::shared_ptr<Table> table);
  // A read of a materialized view itself, kept apart from the base reads (a change scope
  // watches the view's sources instead): its id is negative (-2, -3, …) and takes readColumn /
  // readAll like a base read's, so what reads a maintained table's columns can be asked
  // (a drop guard following a CHECK through the view to its source's column).
  int addDerived(std::shared_ptr<Table> view);
  void readColumn(int read, int column);
  void readAll(int read);
  void pinKey(int read, std::vector<std::vector<TableRead::Pinned>> pins);
  void parameter(int slot, const ast::Expr* node);
  void nonDeterministic(const std::string& functionName);
  void writeTarget(std::shared_ptr<Table> table) { targets_.push_back(std::move(table)); }

  // After binding: resolves pinned parameter nodes to their slots and forgets the AST pointers.
  void finish();

  const std::vector<TableRead>& reads() const { return reads_; }
  const std::vector<TableRead>& derivedReads() const { return derived_; }
  const std::vector<std::shared_ptr<Table>>& targets() const { return targets_; }
  const std::vector<std::string>& nonDeterministicCalls() const { return nondet_; }
  // Slots referenced anywhere but in a primary-key pin (inputs that watching state cannot see).
  const std::set<int>& freeParameterSlots() const { return freeSlots_; }
  const std::set<int>& parameterSlots() const { return slots_; }

 private:
  TableRead* readOf(int read);
  std::vector<TableRead> reads_;
  std::vector<TableRead> derived_;  // id -2 - i
  std::vector<std::shared_ptr<Table>> targets_;
  std::vector<std::string> nondet_;
  std::vector<std::pair<int, const ast::Expr*>> params_;
  std::set<int> freeSlots_;  // filled by finish()
  std::set<int> slots_;
};

struct ScopeStatement {
  bool dml = false;          // INSERT / UPDATE / DELETE
  bool returning = false;    // with RETURNING
  std::vector<std::string> paramNames;  // index = slot-1, "" for positional
};

// The statement's scope with every parameter a placeholder (bind with bindParameters).
ChangeScope buildChangeScope(const ReadRecorder& r, const ScopeStatement& st);

// The WHERE conjuncts of a single-table reference that pin its primary key, recorded on the
// read (binder hook; `qualifier` is the alias or table name the conjuncts may use).
void recordKeyPins(ReadRecorder& r, int read, const Table& table, const std::string& qualifier,
                   const ast::Expr* where);

// A read of a materialized view watches its sources instead (§4): a `full`, all-columns read
// of every base table its body reads, through MVs over MVs.
class Context;
void recordMaterializedViewSources(ReadRecorder& r, Context& ctx, const std::shared_ptr<Table>& mv);

}  // namespace optic
