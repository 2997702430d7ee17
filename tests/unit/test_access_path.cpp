// Access paths (core/planner/access_path.h).
//
// AccessPathKinds: one case per kind of path (primary-key point, prefix and range; secondary
// index point, prefix, range, IN list, ordered scans ASC/DESC with LIMIT/OFFSET; DML through an
// index; collation and type-coercion limits), each checked against its known answer with the
// optimizer on and with `pragma use_indexes = off`.
//
// AccessPathDifferential: random tables with random secondary indexes (one or two columns,
// ASC/DESC, NOCASE, sometimes partial), random data with NULLs, duplicates and mixed-type text, and
// random queries (equalities, ranges, BETWEEN, IN, ORs, literals and parameters of other types,
// ORDER BY with LIMIT/OFFSET, joins of two and three tables, GROUP BY, DISTINCT, IN (select …),
// filters over FROM subqueries and CTEs, which may move into their bodies, UPDATE/DELETE) run on two identical databases, one planning
// with indexes and one without: every result must be identical (in order when ORDER BY fixes
// it, as a multiset otherwise). Time-bounded; the seed is printed on failure and can be fixed
// with OPTIC_ACCESS_PATH_SEED. ReorderedJoinsAnswerAsTheNaivePlan does the same for joins that
// write a large table first and bound the second, which the planner may run second side first.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>

#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;

// ---- known answers, one per path kind -----------------------------------------------------------

struct PathCase {
  const char* name;
  const char* sql;
  const char* expected;
};

void PrintTo(const PathCase& c, std::ostream* os) { *os << c.name; }

constexpr const char* kSchema =
    "create table item (id integer primary key, cat text null collate nocase, price integer null, "
    "name text, score real null);"
    "create index item_cat on item (cat, price desc);"
    "create index item_price on item (price);"
    "create index item_name on item (name desc);"
    "create table pair (a integer, b text, v integer, primary key (a, b desc));"
    "insert into item values (1, 'Red', 10, 'kite', 1.5), (2, 'red', 30, 'ball', null), "
    "(3, 'blue', 20, 'cube', 2.5), (4, null, null, 'drum', 0.5), (5, 'RED', 20, 'apple', 3.0), "
    "(6, 'green', 5, 'flute', null), (7, 'blue', 40, 'gong', 1.0);"
    "insert into pair values (1, 'x', 1), (1, 'y', 2), (2, 'x', 3), (2, 'z', 4), (3, 'y', 5);";

class AccessPathKinds : public ::testing::TestWithParam<PathCase> {};

TEST_P(AccessPathKinds, AnswersAsTheNaivePlan) {
  const PathCase& c = GetParam();
  for (const char* mode : {"on", "off"}) {
    Database db;
    db.exec(kSchema);
    db.exec(std::string("pragma use_indexes = ") + mode);
    EXPECT_EQ(rows(db, c.sql), c.expected) << "use_indexes = " << mode;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, AccessPathKinds,
    ::testing::Values(
        PathCase{"PkPoint", "select name from item where id = 3", "cube"},
        PathCase{"PkPointTextProbe", "select name from item where id = '3'", "cube"},
        PathCase{"PkRange", "select id from item where id >= 2 and id < 5", "2;3;4"},
        PathCase{"PkRangeDesc", "select id from item where id > 5 order by id desc", "7;6"},
        PathCase{"PkBetween", "select id from item where id between 3 and 4", "3;4"},
        PathCase{"PkIn", "select id from item where id in (6, 2, 6, null, 9) order by id", "2;6"},
        PathCase{"PkPrefix", "select b from pair where a = 2", "z;x"},
        PathCase{"PkPrefixRangeDesc", "select b from pair where a = 1 and b >= 'y'", "y"},
        PathCase{"IndexPointNocase", "select id from item where cat = 'RED' order by id", "1;2;5"},
        PathCase{"IndexPointBinaryCollate", "select id from item where cat = 'red' collate binary", "2"},
        PathCase{"IndexPrefixOrdered", "select id from item where cat = 'red' order by price desc", "2;5;1"},
        PathCase{"IndexPrefixRange", "select id from item where cat = 'blue' and price > 20", "7"},
        PathCase{"IndexRange", "select id from item where price > 10 and price <= 30 order by price, id", "3;5;2"},
        PathCase{"IndexRangeTextBound", "select id from item where price >= '20' order by price, id", "3;5;2;7"},
        PathCase{"IndexIn", "select id from item where price in (20, 5) order by id", "3;5;6"},
        PathCase{"IndexOrPoints", "select id from item where price = 20 or price = 5 order by id", "3;5;6"},
        PathCase{"IndexOrPointsAndIn", "select id from item where price in (30) or price = 5 or price = null order by id",
                 "2;6"},
        PathCase{"PkOrPoints", "select name from item where id = 2 or id = 7 or id = 2 order by id", "ball;gong"},
        PathCase{"OrAcrossColumns", "select id from item where price = 5 or id = 1 order by id", "1;6"},
        PathCase{"OrderedLimit", "select id from item order by price desc limit 2", "4;7"},
        PathCase{"OrderedNullsLast", "select id from item order by price nulls last, id limit 3", "6;1;3"},
        PathCase{"OrderedOffset", "select name from item order by name desc limit 2 offset 1", "gong;flute"},
        PathCase{"OrderedAsc", "select name from item order by name limit 3", "apple;ball;cube"},
        PathCase{"LikePrefixDescIndex", "select name from item where name like 'g%'", "gong"},
        PathCase{"LikePrefixNocaseIndex", "select id from item where cat like 'r%' order by id", "2"},
        PathCase{"LikeWildcardFirst", "select id from item where name like '_u%' order by id", "3"},
        PathCase{"MaxFromIndexEnd", "select max(name) from item", "kite"},
        PathCase{"MinFromIndexEnd", "select min(name) from item where name > 'b'", "ball"},
        PathCase{"MinOfNullableColumn", "select min(price) from item", "5"},
        PathCase{"MaxOfPrimaryKeyRange", "select max(id) as top from item where id < 6", "5"},
        PathCase{"MaxOverNoRows", "select max(name) from item where name > 'z'", "null"},
        PathCase{"NullNeverEqual", "select id from item where price = null", ""},
        PathCase{"TextColumnNumberProbe", "select id from item where name = 0 order by id", "1;2;3;4;5;6;7"},
        PathCase{"RealColumnRange", "select id from item where score < 1.5 order by score", "4;7"}));

TEST(AccessPathWrites, UpdateAndDeleteFindRowsThroughIndexes) {
  for (const char* mode : {"on", "off"}) {
    Database db;
    db.exec(kSchema);
    db.exec(std::string("pragma use_indexes = ") + mode);
    db.exec("update item set price = price + 1 where cat = 'red'");
    db.exec("update item set cat = 'blue' where price between 20 and 25");
    db.exec("delete from item where price in (11, 5)");
    EXPECT_EQ(rows(db, "select id, cat, price from item order by id"),
              "2|red|31;3|blue|20;4|null|null;5|blue|21;7|blue|40")
        << "use_indexes = " << mode;
    EXPECT_EQ(rows(db, "select id from item where cat = 'BLUE' order by price desc"), "7;5;3");
  }
}

// An update rewrites an index entry only when the entry's key changed: the same value, or one
// that keys alike (1 and 1.0 in a REAL column, 'x' and 'X' under NOCASE), keeps it; a changed
// value or primary key moves it. Every lookup afterwards answers from the index as from the rows.
TEST(AccessPathWrites, UpdatesMoveOnlyTheIndexEntriesWhoseKeyChanged) {
  Database db;
  db.exec("create table m (id integer primary key, a real null, b text collate nocase null, c integer null, d text);"
          "create index m_a on m (a); create index m_b on m (b); create unique index m_c on m (c);"
          "insert into m values (1, 1.0, 'x', 10, 'p'), (2, 0.5, 'Y', 20, 'q'), (3, null, null, null, 'r')");
  db.exec("update m set d = d || '!'");           // no indexed column changes
  db.exec("update m set a = 1 where id = 1");     // an integer into REAL: the same key
  db.exec("update m set a = -0.0 where id = 2");  // a new key
  db.exec("update m set b = 'X' where id = 1");   // NOCASE: the same key, a new value
  db.exec("update m set id = 4 where id = 3");    // every entry of the row moves to the new key
  db.exec("update m set c = 30 where id = 2");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"select id, d from m where a = 1", "1|p!"},
      {"select id from m where a = 0", "2"},
      {"select id from m where a = 0.5", ""},
      {"select id, b from m where b = 'x'", "1|X"},
      {"select id from m where b >= 'a' order by b", "1;2"},
      {"select id from m where c = 20", ""},
      {"select id from m where c = 30", "2"},
      {"select id, d from m where id = 4", "4|r!"},
      {"select id from m where id = 3", ""},
      {"select id from m where a is null and b is null and c is null", "4"},
  };
  for (const char* mode : {"on", "off"}) {
    db.exec(std::string("pragma use_indexes = ") + mode);
    for (const auto& [query, answer] : expected) EXPECT_EQ(rows(db, query), answer) << query << " (use_indexes = " << mode << ")";
  }
  db.exec("insert into m values (5, null, null, 20, 's')");  // 20 left the unique index
  EXPECT_THROW(db.exec("insert into m values (6, null, null, 30, 't')"), Error);
}

TEST(AccessPathPragma, ReadsBackAndDefaultsOn) {
  Database db;
  EXPECT_EQ(rows(db, "pragma use_indexes"), "use_indexes|true");
  db.exec("pragma use_indexes = off");
  EXPECT_EQ(rows(db, "pragma use_indexes"), "use_indexes|false");
}

// ---- the differential oracle --------------------------------------------------------------------

// A value rendered with its storage class, so 1 and '1' differ.
std::string render(const Value& v) {
  if (v.isNull()) return "null";
  if (v.isText()) return "'" + toText(v) + "'";
  if (v.isNumeric()) return toText(v);
  return "#" + toText(v);
}

struct Outcome {
  std::vector<std::string> rows;
  std::string error;
};

Outcome run(Database& db, const std::string& sql, const std::vector<Value>& params) {
  Outcome out;
  try {
    auto st = db.prepare(sql);
    for (size_t i = 0; i < params.size(); ++i) st->bind(static_cast<int>(i) + 1, params[i]);
    while (st->step()) {
      std::string line;
      for (const Value& v : st->row()) line += render(v) + "|";
      out.rows.push_back(std::move(line));
    }
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

// One random schema, its data, and a stream of random statements over it.
class RandomWorkload {
 public:
  // `largeT1`: t1 holds that many rows and more (else both tables hold 40 to 160), and the
  // statements are joins that write t1 first and bound t2, whose order the planner may swap.
  explicit RandomWorkload(uint32_t seed, int largeT1 = 0) : rng_(seed), largeT1_(largeT1) {}

  struct Column {
    std::string name;
    std::string type;  // integer, text, real
    bool nocase = false;
    bool notNull = false;
  };
  struct Statement {
    std::string sql;
    std::vector<Value> params;
    bool ordered = false;  // the ORDER BY fixes the row order
    bool write = false;
  };

  std::string schema() {
    cols_ = {{"a", "integer"}, {"b", "text", pick(3) == 0}, {"c", "real"}, {"d", "text"}, {"e", "integer", false, true}};
    composite_ = pick(3) == 0;
    std::string ddl;
    for (const char* t : {"t1", "t2"}) {
      ddl += std::string("create table ") + t + " (id integer" + (composite_ ? "" : " primary key");
      for (const Column& c : cols_) {
        ddl += ", " + c.name + " " + c.type + (c.notNull ? "" : " null") + (c.nocase ? " collate nocase" : "");
      }
      if (composite_) ddl += std::string(", primary key (d") + (pick(2) ? " desc" : "") + ", id)";
      ddl += ");";
      int indexes = 1 + pick(3);
      for (int i = 0; i < indexes; ++i) {
        ddl += std::string("create index ") + t + "_ix" + std::to_string(i) + " on " + t + " (";
        int width = 1 + pick(2);
        std::vector<std::string> used;
        for (int k = 0; k < width; ++k) {
          const Column& c = cols_[pick(cols_.size())];
          if (std::find(used.begin(), used.end(), c.name) != used.end()) continue;
          used.push_back(c.name);
          ddl += (k && used.size() > 1 ? ", " : "") + c.name + (pick(2) ? " desc" : "");
        }
        ddl += ")";
        if (pick(5) == 0) ddl += " where a > 2";  // partial: never a path, but maintained by writes
        ddl += ";";
      }
    }
    return ddl;
  }

  std::string data() {
    std::string sql;
    for (const char* t : {"t1", "t2"}) {
      int n = largeT1_ && t == std::string("t1") ? largeT1_ + static_cast<int>(pick(1000)) : 40 + static_cast<int>(pick(120));
      for (int id = 1; id <= n; ++id) {
        sql += std::string("insert into ") + t + " values (" + std::to_string(id);
        for (const Column& c : cols_) {
          // A composite key's d must not be NULL.
          sql += ", " + literalFor(c, !c.notNull && !(composite_ && c.name == "d"));
        }
        sql += ");";
      }
    }
    return sql;
  }

  Statement next() {
    if (largeT1_) return pick(10) ? largeFirstJoin() : write();
    int kind = pick(24);
    if (kind == 0) return write();
    if (kind <= 3) return join();
    if (kind == 4) return grouped();
    if (kind == 5) return correlated();
    if (kind == 6) return extremum();
    if (kind == 7) return distinct();
    if (kind == 8) return inSelect();
    if (kind == 9) return join3();
    if (kind == 10) return derived();
    return select();
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::string literalFor(const Column& c, bool nullable) {
    if (nullable && pick(6) == 0) return "null";
    if (c.type == "integer") return std::to_string(static_cast<int>(pick(12)) - 3);
    if (c.type == "real") {
      static const char* const kReals[] = {"-1.5", "0", "0.5", "1", "2.25", "3", "7.5"};
      return kReals[pick(std::size(kReals))];
    }
    static const char* const kTexts[] = {"'a'", "'A'", "'b'", "'B'", "'ab'", "'10'", "'9'", "''", "'b '", "'zz'"};
    return kTexts[pick(std::size(kTexts))];
  }

  // A probe for column `c`: usually of its own type, sometimes of another (text against a number
  // column, a number against text), sometimes a parameter or NULL.
  std::string probe(const Column& c, std::vector<Value>& params) {
    int r = static_cast<int>(pick(10));
    if (r == 0) {
      static const char* const kOther[] = {"'3'", "'2.5'", "'x'", "1", "10", "'10'", "null", "2.0"};
      return kOther[pick(std::size(kOther))];
    }
    if (r == 1) {
      static const Value kParams[] = {Value::integer(2), Value::text("2"), Value::text("b"), Value::real(0.5),
                                      Value::text("10"), Value::integer(10), Value()};
      params.push_back(kParams[pick(std::size(kParams))]);
      return "?";
    }
    return literalFor(c, false);
  }

  std::string predicate(const std::string& q, std::vector<Value>& params) {
    if (pick(8) == 0) return disjunction(q, params);
    return comparison(q, pickColumn(), params);
  }

  // `(p or p …)`, mostly on one column (an OR of points bounds its column like an IN list).
  std::string disjunction(const std::string& q, std::vector<Value>& params) {
    const Column& c = pickColumn();
    std::string d = "(" + comparison(q, c, params);
    for (size_t k = 1 + pick(2); k > 0; --k) d += " or " + comparison(q, pick(4) ? c : pickColumn(), params);
    return d + ")";
  }

  std::string comparison(const std::string& q, const Column& c, std::vector<Value>& params) {
    std::string col = q + c.name;
    if (c.type == "text" && pick(8) == 0) col += pick(2) ? " collate nocase" : " collate binary";
    if (c.type == "text" && pick(10) == 0) {
      static const char* const kPatterns[] = {"'a%'", "'A%'", "'b_'", "'1%'", "'%'", "'ab%'", "''", "'b %'", "'zz'"};
      if (pick(4) == 0) {
        static const Value kParams[] = {Value::text("a%"), Value::text("b%"), Value::text("_"), Value::integer(1), Value()};
        params.push_back(kParams[pick(std::size(kParams))]);
        return col + " like ?";
      }
      return col + " like " + kPatterns[pick(std::size(kPatterns))];
    }
    switch (pick(9)) {
      case 0: case 1: return col + " = " + probe(c, params);
      case 2: return col + " > " + probe(c, params);
      case 3: return col + " >= " + probe(c, params);
      case 4: return col + " < " + probe(c, params);
      case 5: return col + " <= " + probe(c, params);
      case 6: {
        std::string lo = probe(c, params);
        return col + " between " + lo + " and " + probe(c, params);
      }
      case 7: {
        std::string list = probe(c, params);
        for (size_t k = pick(3); k > 0; --k) list += ", " + probe(c, params);
        return col + " in (" + list + ")";
      }
      default: return q + "id " + (pick(2) ? "<= " : "> ") + std::to_string(pick(150));
    }
  }

  const Column& pickColumn() { return cols_[pick(cols_.size())]; }

  std::string where(const std::string& q, std::vector<Value>& params) {
    size_t n = pick(4);
    if (n == 0) return "";
    std::string w = " where ";
    for (size_t i = 0; i < n; ++i) w += (i ? " and " : "") + predicate(q, params);
    return w;
  }

  std::string direction() {
    std::string d = pick(2) ? " desc" : "";
    if (pick(6) == 0) d += pick(2) ? " nulls last" : " nulls first";
    return d;
  }

  Statement select() {
    Statement s;
    std::string table = pick(2) ? "t1" : "t2";
    // Some selects read only a few columns: an index holding them answers without row fetches.
    std::string columns = "*";
    if (pick(2)) {
      columns = "id";
      for (size_t k = pick(3); k > 0; --k) columns += ", " + pickColumn().name;
    }
    s.sql = "select " + columns + " from " + table + where("", s.params);
    if (pick(3) != 0) {
      s.sql += " order by ";
      for (size_t k = pick(3); k > 0; --k) {
        const Column& c = pickColumn();
        s.sql += c.name + (c.type == "text" && pick(6) == 0 ? " collate nocase" : "") + direction() + ", ";
      }
      s.sql += composite_ ? "d" + direction() + ", id" + direction() : "id" + direction();
      s.ordered = true;
      if (pick(2)) {
        s.sql += " limit " + std::to_string(pick(30));
        if (pick(3) == 0) s.sql += " offset " + std::to_string(pick(20));
      }
    }
    return s;
  }

  // Inner and left joins on an equality (sometimes with a bound on the inner side in ON), with
  // WHERE conjuncts on either side: hash joins and index nested-loop joins alike.
  Statement join() {
    Statement s;
    const Column& l = pickColumn();
    const Column& r = pickColumn();
    bool left = pick(3) == 0;
    s.sql = std::string("select t1.id, t2.id from t1 ") + (left ? "left join" : "join") + " t2 on t2." + r.name +
            " = t1." + l.name;
    if (pick(3) == 0) s.sql += " and " + predicate("t2.", s.params);
    std::string w = where("t1.", s.params);
    if (!w.empty() && pick(2)) w += " and " + predicate("t2.", s.params);
    s.sql += w;
    return s;
  }

  // The large t1 written first, joined on its key or a column (maybe indexed) to t2, which the
  // WHERE usually bounds: the planner may start from t2. `*` checks the written column order.
  Statement largeFirstJoin() {
    Statement s;
    const Column& c = pickColumn();
    s.sql = "select * from t1 join t2 on " + (pick(3) ? "t1." + c.name + " = t2." + c.name : "t1.id = t2." + c.name);
    if (pick(4) == 0) s.sql += " and " + predicate("t1.", s.params);
    std::string w = where("t2.", s.params);
    if (pick(3)) {
      w += (w.empty() ? " where " : " and ") + std::string("t2.id ") + (pick(2) ? "= " : "< ") + "?";
      s.params.push_back(Value::integer(static_cast<int64_t>(pick(60))));
    }
    s.sql += w;
    if (pick(2)) {
      s.sql += " order by t1.id, t2.id";
      if (pick(2)) s.sql += " limit " + std::to_string(1 + pick(30));
      s.ordered = true;
    }
    return s;
  }

  // A FROM subquery or a CTE over t1, filtered outside: the filter may move into the body.
  Statement derived() {
    Statement s;
    static const char* const kBodies[] = {"select * from t1", "select id, a, b, c, d, e from t1 where e > 0",
                                          "select id, a + 0 as a, b, c, d, e from t1", "select t1.* from t1"};
    std::string body = kBodies[pick(std::size(kBodies))];
    std::string w = where(pick(2) ? "s." : "", s.params);
    s.sql = pick(2) ? "select s.id, s.a, s.b from (" + body + ") s" + w
                    : "with s as (" + body + ") select s.id, s.a, s.b from s" + w;
    return s;
  }

  // A subquery whose scan is bounded by the outer row's values.
  Statement correlated() {
    Statement s;
    const Column& c = pickColumn();
    std::string inner = "select count(*) from t2 where t2." + c.name + " = t1." + c.name;
    if (pick(2)) inner += " and " + predicate("t2.", s.params);
    s.sql = "select t1.id, (" + inner + ") from t1" + where("t1.", s.params);
    return s;
  }

  // min/max of a column, which an ordered scan answers from its first row.
  Statement extremum() {
    Statement s;
    const Column& c = pickColumn();
    // Of a NOCASE column's equal values either spelling may come first: compare them lower-cased.
    std::string extreme = std::string(pick(2) ? "min(" : "max(") + c.name + ")";
    if (c.nocase) extreme = "lower(" + extreme + ")";
    s.sql = "select " + extreme + " from t1" + where("", s.params);
    return s;
  }

  // DISTINCT over number columns (a NOCASE text column would show whichever spelling came first).
  Statement distinct() {
    Statement s;
    static const char* const kColumns[] = {"a", "e", "a, e", "c", "a, c"};
    s.sql = std::string("select distinct ") + kColumns[pick(std::size(kColumns))] + " from t1" + where("", s.params);
    return s;
  }

  // IN (select …) over the other table, each side bounded by its own WHERE.
  Statement inSelect() {
    Statement s;
    const Column& c = pickColumn();
    std::string inner = "select " + c.name + " from t2" + where("", s.params);
    std::string outer = where("", s.params);
    s.sql = "select id from t1" + (outer.empty() ? " where " : outer + " and ") + c.name + (pick(4) ? " in (" : " not in (") +
            inner + ")";
    return s;
  }

  // Three tables (t1 twice): index nested loops may chain.
  Statement join3() {
    Statement s;
    const Column& l = pickColumn();
    const Column& m = pickColumn();
    s.sql = "select t1.id, t2.id, t3.id from t1 join t2 on t2." + l.name + " = t1." + l.name + (pick(3) ? " join" : " left join") +
            " t1 as t3 on t3." + m.name + " = t2." + m.name + where("t1.", s.params);
    return s;
  }

  Statement grouped() {
    Statement s;
    const Column& c = pickColumn();
    // Not the key itself: under NOCASE a group shows whichever spelling it met first.
    s.sql = "select count(*), min(id), max(id) from t1" + where("", s.params) + " group by " + c.name;
    return s;
  }

  Statement write() {
    Statement s;
    s.write = true;
    std::string table = pick(2) ? "t1" : "t2";
    if (pick(3) == 0) {
      s.sql = "delete from " + table + where("", s.params);
    } else {
      const Column& c = pickColumn();
      std::string value = literalFor(c, !c.notNull && !(composite_ && c.name == "d"));
      s.sql = "update " + table + " set " + c.name + " = " + value + where("", s.params);
    }
    return s;
  }

  std::mt19937 rng_;
  int largeT1_ = 0;
  std::vector<Column> cols_;
  bool composite_ = false;
};

uint32_t differentialSeed() {
  if (const char* fixed = std::getenv("OPTIC_ACCESS_PATH_SEED")) return static_cast<uint32_t>(std::strtoul(fixed, nullptr, 10));
  return static_cast<uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

// Runs random workloads (RandomWorkload(seed, largeT1)) on an indexed and a naive database
// until `floor` queries have run and `seconds` have passed (at most `cap` queries), asserting
// every answer agrees.
void runDifferential(int largeT1, int floor, int cap, int seconds, int perRound) {
  const uint32_t seed = differentialSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with OPTIC_ACCESS_PATH_SEED=" + std::to_string(seed) + ")");
  std::mt19937 seeds(seed);
  // At least `floor` queries however slow the build (a sanitizer build, a loaded machine), and
  // more while time allows: the floor is what the test promises, the deadline only bounds the extra.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  auto more = [&](int queries) { return queries < floor || std::chrono::steady_clock::now() < deadline; };
  int queries = 0;
  for (int round = 0; queries < cap && more(queries); ++round) {
    RandomWorkload w(seeds(), largeT1);
    Database indexed, naive;
    naive.exec("pragma use_indexes = off");
    std::string ddl = w.schema(), data = w.data();
    for (Database* db : {&indexed, &naive}) {
      db->exec(ddl);
      db->exec(data);
    }
    for (int i = 0; i < perRound && more(queries); ++i, ++queries) {
      RandomWorkload::Statement s = w.next();
      Outcome a = run(indexed, s.sql, s.params), b = run(naive, s.sql, s.params);
      if (s.write) {
        ASSERT_EQ(a.error, b.error) << "round " << round << ": " << s.sql << "\nschema: " << ddl;
        static const char* const kContents = "select * from t1 union all select * from t2";
        a = run(indexed, kContents, {});
        b = run(naive, kContents, {});
      }
      if (!s.ordered || s.write) {
        std::sort(a.rows.begin(), a.rows.end());
        std::sort(b.rows.begin(), b.rows.end());
      }
      ASSERT_EQ(a.error, b.error) << "round " << round << ": " << s.sql << "\nschema: " << ddl;
      ASSERT_EQ(a.rows, b.rows) << "round " << round << ": " << s.sql << "\nschema: " << ddl;
    }
  }
}

TEST(AccessPathDifferential, IndexedPlansAnswerAsTheNaivePlan) { runDifferential(0, 300, 3000, 14, 150); }

// Joins whose written order the planner may swap (a large first table, a bounded second one).
TEST(AccessPathDifferential, ReorderedJoinsAnswerAsTheNaivePlan) { runDifferential(1500, 40, 600, 8, 60); }

}  // namespace
}  // namespace optic
