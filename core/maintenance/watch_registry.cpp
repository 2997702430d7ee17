// Watch matching over the change log (watch_registry.h).
#include "core/maintenance/watch_registry.h"

#include <algorithm>
#include <set>

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"

namespace optic {

namespace {

std::string tableKey(std::string_view schema, std::string_view table) {
  std::string k;
  k.reserve(schema.size() + table.size() + 1);
  k.append(schema);
  k += '\x1f';
  k.append(table);
  return k;
}

// The columns of one key shape: which row positions, typed and collated as the table declares.
struct Columns {
  std::vector<int> index;
  std::vector<LogicalType> types;
  std::vector<Collation> collations;
  bool operator==(const Columns& o) const { return index == o.index; }
};

// Encodes the shape's columns of `row`; false when the row is too narrow (a reshaped image).
bool encodeTuple(const Columns& c, const Row& row, std::string& out) {
  out.clear();
  for (size_t i = 0; i < c.index.size(); ++i) {
    if (static_cast<size_t>(c.index[i]) >= row.size()) return false;
    encodeColumnKey(row[c.index[i]], c.types[i], c.collations[i], false, out);
  }
  return true;
}

struct Ref {
  uint64_t sub = 0;
  uint32_t watch = 0;
  uint32_t tuple = 0;  // rows/rowsByGroup: which registered tuple
};

struct KeyShape {
  Columns columns;
  std::unordered_map<std::string, std::vector<Ref>> byTuple;
};

struct GroupWatch {
  Ref ref;
  Columns columns;
};

struct TableIndex {
  std::vector<Ref> full;
  std::vector<GroupWatch> groups;
  std::vector<KeyShape> shapes;
  size_t count = 0;  // registered watches, all kinds
};

// Where one subscription's watches sit in the index, for removal.
struct Placement {
  std::string table;
  int shape = -1;  // -1: full or groups
  std::string tuple;
};

struct Subscription {
  ChangeScope scope;
  std::vector<Placement> placements;
};

struct Accumulator {
  std::vector<Row> hits;
  std::set<std::string> seen;
};

Columns resolveColumns(const TableSchema& ts, const std::vector<std::string>& names, const TableWatch& w) {
  Columns c;
  for (const std::string& n : names) {
    int i = ts.findColumn(n);
    if (i < 0) throw Error(ErrorCode::kNotFound, "Column not found: " + w.schema + "." + w.table + "." + n);
    c.index.push_back(i);
    c.types.push_back(ts.columns[i].type);
    c.collations.push_back(ts.columns[i].collation);
  }
  return c;
}

}  // namespace

struct WatchRegistry::Impl {
  std::map<uint64_t, Subscription> subs;
  std::unordered_map<std::string, TableIndex> tables;
  uint64_t next = 1;

  using Result = std::map<uint64_t, std::map<uint32_t, Accumulator>>;

  static void hit(Result& r, const Ref& ref) { r[ref.sub][ref.watch]; }

  void hitTuple(Result& r, const Ref& ref) const {
    Accumulator& a = r[ref.sub][ref.watch];
    std::string k = std::to_string(ref.tuple);
    if (!a.seen.insert(k).second) return;
    const auto& values = subs.at(ref.sub).scope.watches[ref.watch].scope.values[ref.tuple];
    Row row;
    for (const ScopeValue& v : values) row.push_back(v.value);
    a.hits.push_back(std::move(row));
  }

  static void hitGroup(Result& r, const GroupWatch& g, const Row& row, std::string& scratch) {
    if (!encodeTuple(g.columns, row, scratch)) return;
    Accumulator& a = r[g.ref.sub][g.ref.watch];
    if (!a.seen.insert(scratch).second) return;
    Row key;
    for (int i : g.columns.index) key.push_back(row[i]);
    a.hits.push_back(std::move(key));
  }

  void matchRow(Result& r, const TableIndex& t, const Row& row, std::string& scratch) const {
    for (const GroupWatch& g : t.groups) hitGroup(r, g, row, scratch);
    for (const KeyShape& s : t.shapes) {
      if (s.byTuple.empty() || !encodeTuple(s.columns, row, scratch)) continue;
      auto it = s.byTuple.find(scratch);
      if (it == s.byTuple.end()) continue;
      for (const Ref& ref : it->second) hitTuple(r, ref);
    }
  }

  std::vector<SubscriptionMatch> collect(Result& r) const {
    std::vector<SubscriptionMatch> out;
    for (auto& [sub, watches] : r) {
      const ChangeScope& scope = subs.at(sub).scope;
      SubscriptionMatch m;
      m.subscription = sub;
      for (auto& [w, acc] : watches) m.matched.push_back(MatchedWatch{scope.watches[w], std::move(acc.hits)});
      out.push_back(std::move(m));
    }
    return out;
  }
};

WatchRegistry::WatchRegistry() : impl_(std::make_unique<Impl>()) {}
WatchRegistry::~WatchRegistry() = default;

uint64_t WatchRegistry::add(const Catalog& catalog, ChangeScope scope) {
  if (!scope.unboundParameters.empty()) {
    throw Error(ErrorCode::kMisuse,
                "watch: the scope has unbound parameters; call bindParameters(scope, params) first");
  }
  canonicalize(scope);
  // Validate everything before indexing anything, so a failed add leaves no trace.
  std::vector<std::shared_ptr<Table>> tables;
  for (const TableWatch& w : scope.watches) {
    std::shared_ptr<Table> t = catalog.findTable(w.schema, w.table);
    if (!t) throw Error(ErrorCode::kNotFound, "watch: table not found: " + w.schema + "." + w.table);
    const TableSchema& ts = t->schema();
    for (const std::string& c : w.columns) resolveColumns(ts, {c}, w);
    resolveColumns(ts, w.scope.columns, w);
    for (const auto& tuple : w.scope.values) {
      for (const ScopeValue& v : tuple) {
        if (v.param) {
          throw Error(ErrorCode::kMisuse, "watch: a scope value is an unbound parameter placeholder; call "
                                          "bindParameters(scope, params) first");
        }
      }
    }
    tables.push_back(std::move(t));
  }
  uint64_t id = impl_->next++;
  Subscription& sub = impl_->subs[id];
  sub.scope = std::move(scope);
  std::string scratch;
  for (size_t wi = 0; wi < sub.scope.watches.size(); ++wi) {
    const TableWatch& w = sub.scope.watches[wi];
    std::string key = tableKey(w.schema, w.table);
    TableIndex& t = impl_->tables[key];
    ++t.count;
    Ref ref{id, static_cast<uint32_t>(wi), 0};
    const TableSchema& ts = tables[wi]->schema();
    switch (w.scope.kind) {
      case WatchKind::kFull:
        t.full.push_back(ref);
        sub.placements.push_back(Placement{key, -1, {}});
        break;
      case WatchKind::kGroups:
        t.groups.push_back(GroupWatch{ref, resolveColumns(ts, w.scope.columns, w)});
        sub.placements.push_back(Placement{key, -1, {}});
        break;
      case WatchKind::kRows:
      case WatchKind::kRowsByGroup: {
        Columns cols = resolveColumns(ts, w.scope.columns, w);
        auto it = std::find_if(t.shapes.begin(), t.shapes.end(), [&](const KeyShape& s) { return s.columns == cols; });
        if (it == t.shapes.end()) {
          t.shapes.push_back(KeyShape{cols, {}});
          it = t.shapes.end() - 1;
        }
        int shape = static_cast<int>(it - t.shapes.begin());
        for (size_t ti = 0; ti < w.scope.values.size(); ++ti) {
          Row values;
          for (const ScopeValue& v : w.scope.values[ti]) values.push_back(v.value);
          encodeTuple(cols, values, scratch);
          ref.tuple = static_cast<uint32_t>(ti);
          it->byTuple[scratch].push_back(ref);
          sub.placements.push_back(Placement{key, shape, scratch});
        }
        if (w.scope.values.empty()) sub.placements.push_back(Placement{key, -1, {}});
        break;
      }
    }
  }
  return id;
}

bool WatchRegistry::remove(uint64_t id) {
  auto it = impl_->subs.find(id);
  if (it == impl_->subs.end()) return false;
  std::set<std::string> touched;
  for (const Placement& p : it->second.placements) {
    auto t = impl_->tables.find(p.table);
    if (t == impl_->tables.end()) continue;
    touched.insert(p.table);
    if (p.shape < 0) continue;
    auto& byTuple = t->second.shapes[p.shape].byTuple;
    auto refs = byTuple.find(p.tuple);
    if (refs == byTuple.end()) continue;
    std::erase_if(refs->second, [&](const Ref& r) { return r.sub == id; });
    if (refs->second.empty()) byTuple.erase(refs);
  }
  for (const std::string& key : touched) {
    TableIndex& t = impl_->tables[key];
    std::erase_if(t.full, [&](const Ref& r) { return r.sub == id; });
    std::erase_if(t.groups, [&](const GroupWatch& g) { return g.ref.sub == id; });
  }
  for (const TableWatch& w : it->second.scope.watches) {
    auto t = impl_->tables.find(tableKey(w.schema, w.table));
    if (t != impl_->tables.end() && --t->second.count == 0) impl_->tables.erase(t);
  }
  impl_->subs.erase(it);
  return true;
}

std::vector<uint64_t> WatchRegistry::disposeTable(const std::string& schema, const std::string& table) {
  std::vector<uint64_t> gone;
  if (!impl_->tables.count(tableKey(schema, table))) return gone;
  for (const auto& [id, sub] : impl_->subs) {
    for (const TableWatch& w : sub.scope.watches) {
      if (w.schema == schema && w.table == table) {
        gone.push_back(id);
        break;
      }
    }
  }
  for (uint64_t id : gone) remove(id);
  return gone;
}

const ChangeScope* WatchRegistry::scope(uint64_t id) const {
  auto it = impl_->subs.find(id);
  return it == impl_->subs.end() ? nullptr : &it->second.scope;
}

size_t WatchRegistry::size() const { return impl_->subs.size(); }

std::vector<SubscriptionMatch> WatchRegistry::match(const std::vector<RowChange>& changes) const {
  if (impl_->tables.empty() || changes.empty()) return {};
  Impl::Result result;
  std::string scratch;
  // Changes come in runs of one table: resolve the index once per run.
  const std::string* lastSchema = nullptr;
  const std::string* lastTable = nullptr;
  const TableIndex* index = nullptr;
  std::set<const TableIndex*> fullDone;
  for (const RowChange& c : changes) {
    if (!lastSchema || *lastSchema != c.schema || *lastTable != c.table) {
      lastSchema = &c.schema;
      lastTable = &c.table;
      auto it = impl_->tables.find(tableKey(lowerName(c.schema), lowerName(c.table)));
      index = it == impl_->tables.end() ? nullptr : &it->second;
    }
    if (!index) continue;
    if (!index->full.empty() && fullDone.insert(index).second) {
      for (const Ref& r : index->full) Impl::hit(result, r);
    }
    if (c.oldRow) impl_->matchRow(result, *index, *c.oldRow, scratch);
    if (c.newRow) impl_->matchRow(result, *index, *c.newRow, scratch);
  }
  return impl_->collect(result);
}

std::vector<SubscriptionMatch> WatchRegistry::matchWholeTable(const std::string& schema, const std::string& table) const {
  Impl::Result result;
  for (const auto& [id, sub] : impl_->subs) {
    for (size_t wi = 0; wi < sub.scope.watches.size(); ++wi) {
      const TableWatch& w = sub.scope.watches[wi];
      if (w.schema != schema || w.table != table) continue;
      Ref ref{id, static_cast<uint32_t>(wi), 0};
      Impl::hit(result, ref);
      for (size_t ti = 0; ti < w.scope.values.size(); ++ti) {
        ref.tuple = static_cast<uint32_t>(ti);
        impl_->hitTuple(result, ref);
      }
    }
  }
  return impl_->collect(result);
}

}  // namespace optic
