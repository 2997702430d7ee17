// The in-memory KVStore (a B+tree): random puts, erases and exchanges against std::map, in the
// orders that stress splits and merges (ascending, descending, random, bulk deletes), with
// short and long keys and values; iterators that keep walking while the store changes under them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "core/storage/kv_store.h"

namespace optic {
namespace {

using Model = std::map<std::string, std::string>;

// Keys sharing a long prefix (as one table's keys do), some past the inline capacity.
std::string keyOf(uint32_t n, bool longKey) {
  std::string k = longKey ? std::string(40, 'k') : std::string("t\x01");
  for (int shift = 24; shift >= 0; shift -= 8) k.push_back(static_cast<char>((n >> shift) & 0xff));
  return k;
}

std::string valueOf(std::mt19937& rng) {
  static const size_t sizes[] = {0, 1, 9, 27, 28, 29, 64, 300};
  return std::string(sizes[rng() % 8], static_cast<char>('a' + rng() % 26));
}

void expectSame(const KVStore& store, const Model& model) {
  ASSERT_EQ(store.size(), model.size());
  auto it = store.newIterator();
  auto m = model.begin();
  for (it->seekToFirst(); it->valid(); it->next(), ++m) {
    ASSERT_NE(m, model.end());
    ASSERT_EQ(it->key(), m->first);
    ASSERT_EQ(it->value(), m->second);
  }
  ASSERT_EQ(m, model.end());
  auto r = model.rbegin();
  for (it->seekToLast(); it->valid(); it->prev(), ++r) {
    ASSERT_NE(r, model.rend());
    ASSERT_EQ(it->key(), r->first);
  }
  ASSERT_EQ(r, model.rend());
}

void runOrder(const std::vector<uint32_t>& order, bool longKeys, unsigned seed) {
  std::mt19937 rng(seed);
  auto store = newMemoryKVStore();
  Model model;
  for (uint32_t n : order) {
    std::string v = valueOf(rng);
    store->put(keyOf(n, longKeys), v);
    model[keyOf(n, longKeys)] = v;
  }
  expectSame(*store, model);
  // Erase every other key, then all the rest in the same order, checking as merges happen.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = pass; i < order.size(); i += 2) {
      std::string k = keyOf(order[i], longKeys);
      std::optional<std::string> previous = store->exchange(k, std::nullopt);
      ASSERT_TRUE(previous.has_value());
      EXPECT_EQ(*previous, model[k]);
      model.erase(k);
    }
    expectSame(*store, model);
  }
  EXPECT_EQ(store->size(), 0u);
}

TEST(MemoryKVStore, AscendingDescendingAndRandomLoadsThenDeletes) {
  for (bool longKeys : {false, true}) {
    std::vector<uint32_t> ascending(5000);
    for (uint32_t i = 0; i < ascending.size(); ++i) ascending[i] = i;
    runOrder(ascending, longKeys, 1);
    std::vector<uint32_t> descending(ascending.rbegin(), ascending.rend());
    runOrder(descending, longKeys, 2);
    std::vector<uint32_t> shuffled = ascending;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
    runOrder(shuffled, longKeys, 4);
  }
}

TEST(MemoryKVStore, RandomOperationsMatchAnOrderedMap) {
  std::mt19937 rng(7);
  auto store = newMemoryKVStore();
  Model model;
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 2000; ++i) {
      uint32_t n = rng() % 3000;
      std::string k = keyOf(n, n % 5 == 0);
      auto m = model.find(k);
      switch (rng() % 5) {
        case 0:
        case 1: {
          std::string v = valueOf(rng);
          std::optional<std::string> previous = store->exchange(k, std::string_view(v));
          EXPECT_EQ(previous.has_value(), m != model.end());
          if (previous && m != model.end()) {
            EXPECT_EQ(*previous, m->second);
          }
          model[k] = v;
          break;
        }
        case 2:
          store->erase(k);
          model.erase(k);
          break;
        case 3: {
          std::string got;
          EXPECT_EQ(store->get(k, &got), m != model.end());
          if (m != model.end()) {
            EXPECT_EQ(got, m->second);
          }
          EXPECT_EQ(store->contains(k), m != model.end());
          break;
        }
        default: {
          auto it = store->newIterator();
          it->seek(k);
          auto lb = model.lower_bound(k);
          ASSERT_EQ(it->valid(), lb != model.end());
          if (lb != model.end()) {
            EXPECT_EQ(it->key(), lb->first);
          }
        }
      }
    }
    expectSame(*store, model);
    if (round == 20) {
      store->clear();
      model.clear();
      expectSame(*store, model);
    }
  }
}

// A write right after a read (the conflict probe before an insert, a read before a rewrite)
// takes the read's position when it still holds: at, beside and far from the key read, at both
// edges of the tree, with leaves full, near-empty and in between.
TEST(MemoryKVStore, WritesAfterReadsMatchAnOrderedMap) {
  std::mt19937 rng(11);
  auto store = newMemoryKVStore();
  Model model;
  for (int round = 0; round < 30; ++round) {
    for (int i = 0; i < 3000; ++i) {
      uint32_t n = rng() % 2000;
      store->contains(keyOf(n, false));
      int delta = static_cast<int>(rng() % 5) - 2;  // the key read, a neighbour, or two away
      if (rng() % 8 == 0) delta = static_cast<int>(rng() % 2000) - static_cast<int>(n);
      std::string k = keyOf(static_cast<uint32_t>(std::max(0, static_cast<int>(n) + delta)), false);
      bool erase = rng() % (round % 3 == 0 ? 2 : 4) == 0;  // some rounds shrink the tree
      if (erase) {
        EXPECT_EQ(store->exchange(k, std::nullopt).has_value(), model.erase(k) == 1);
      } else {
        std::string v = valueOf(rng);
        store->put(k, v);
        model[k] = v;
      }
    }
    expectSame(*store, model);
  }
}

// Lookups in a store paired with a follower (a materialized view's backing keyed like its source)
// find what unpaired lookups find and leave the follower positioned for the write that follows:
// that write, whether it rewrites, inserts or erases (present, absent, before the first or past
// the last key, trees of different shapes), lands exactly where a write without the pairing would.
TEST(MemoryKVStore, FollowerWritesAfterPairedLookupsMatchAnOrderedMap) {
  std::mt19937 rng(23);
  auto source = newMemoryKVStore();
  auto follower = newMemoryKVStore();
  Model sourceModel, followerModel;
  for (uint32_t n = 10; n < 3000; ++n) {
    if (rng() % 4) {
      source->put(keyOf(n, false), "s");
      sourceModel[keyOf(n, false)] = "s";
    }
    if (rng() % 3) {
      follower->put(keyOf(n, false), "f");
      followerModel[keyOf(n, false)] = "f";
    }
  }
  source->setFollower(follower.get());
  auto it = source->newIterator();
  for (int i = 0; i < 30000; ++i) {
    std::string k = keyOf(rng() % 3100, false);
    auto expected = sourceModel.lower_bound(k);
    bool present = expected != sourceModel.end() && expected->first == k;
    switch (i % 3) {
      case 0:
        it->seek(k);
        ASSERT_EQ(it->valid(), expected != sourceModel.end());
        if (it->valid()) {
          ASSERT_EQ(it->key(), expected->first);
        }
        break;
      case 1: ASSERT_EQ(source->contains(k), present); break;
      default: ASSERT_EQ(source->get(k).has_value(), present); break;
    }
    std::optional<std::string> previous;
    if (rng() % 3 == 0) {
      previous = follower->exchange(k, std::nullopt);
      ASSERT_EQ(previous.has_value(), followerModel.erase(k) == 1);
      continue;
    }
    std::string v = valueOf(rng);
    previous = follower->exchange(k, std::string_view(v));
    auto old = followerModel.find(k);
    ASSERT_EQ(previous.has_value(), old != followerModel.end());
    if (previous) {
      ASSERT_EQ(*previous, old->second);
    }
    followerModel[k] = v;
  }
  source->setFollower(nullptr);
  expectSame(*source, sourceModel);
  expectSame(*follower, followerModel);
}

// A scan that erases and inserts around its own position (as DML over a live scan does) sees
// every original key once, in order, and none it did not keep.
TEST(MemoryKVStore, IteratorSurvivesWritesAroundIt) {
  auto store = newMemoryKVStore();
  for (uint32_t n = 0; n < 4000; n += 2) store->put(keyOf(n, false), "v");
  auto it = store->newIterator();
  std::vector<std::string> seen;
  for (it->seekToFirst(); it->valid(); it->next()) {
    std::string k(it->key());
    seen.push_back(k);
    uint32_t n = (uint8_t(k[4]) << 8) | uint8_t(k[5]);
    if (n >= 2) store->erase(keyOf(n - 2, false));     // behind: merges under the cursor
    store->put(keyOf(n + 1, false), "odd");             // ahead, between two visits: splits
    store->erase(keyOf(n + 1, false));
  }
  ASSERT_EQ(seen.size(), 2000u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], keyOf(static_cast<uint32_t>(2 * i), false));
  EXPECT_EQ(store->size(), 1u);
}

TEST(MemoryKVStore, IteratorWhoseKeyIsErasedStandsOnItsSuccessor) {
  auto store = newMemoryKVStore();
  for (uint32_t n = 0; n < 100; ++n) store->put(keyOf(n, false), std::to_string(n));
  auto it = store->newIterator();
  it->seek(keyOf(50, false));
  store->erase(keyOf(50, false));
  ASSERT_TRUE(it->valid());
  EXPECT_EQ(it->key(), keyOf(51, false));
  it->next();  // already on the successor: the walk goes on from it
  EXPECT_EQ(it->key(), keyOf(51, false));
  it->next();
  EXPECT_EQ(it->key(), keyOf(52, false));
  store->erase(keyOf(52, false));
  it->prev();
  EXPECT_EQ(it->key(), keyOf(51, false));
  it->seekToFirst();
  it->prev();
  EXPECT_FALSE(it->valid());
  it->prev();  // from past the end: the last entry
  ASSERT_TRUE(it->valid());
  EXPECT_EQ(it->key(), keyOf(99, false));
}

// What an iterator promises while the store changes under it, as a model: it stands on the key
// K it last stood on, or, once K is erased, on K's successor at the time it next looks (a
// `next()` from there does not skip it); past the end it stays past the end. Several iterators
// walk at once, forward and back, between random puts, erases and a clear, so the tree moves
// entries under cursors that have and have not looked since the last write.
TEST(MemoryKVStore, IteratorsUnderRandomWritesFollowTheirKeys) {
  std::mt19937 rng(11);
  auto store = newMemoryKVStore();
  Model model;
  struct Walker {
    std::unique_ptr<KVIterator> it;
    std::optional<std::string> key;  // nullopt: past the end
  };
  std::vector<Walker> walkers(3);
  for (Walker& w : walkers) w.it = store->newIterator();
  // Where the model says the walker stands now (and past the end for good when nothing is left).
  auto standsOn = [&](Walker& w) -> std::optional<std::string> {
    if (!w.key) return std::nullopt;
    auto lb = model.lower_bound(*w.key);
    if (lb == model.end()) w.key.reset();
    else return lb->first;
    return std::nullopt;
  };
  for (int step = 0; step < 30000; ++step) {
    uint32_t n = rng() % 600;
    std::string k = keyOf(n, n % 7 == 0);
    uint32_t op = rng() % 10;
    if (op < 3) {
      std::string v = valueOf(rng);
      store->put(k, v);
      model[k] = v;
      continue;
    }
    if (op < 5) {
      store->erase(k);
      model.erase(k);
      continue;
    }
    if (step % 5000 == 4999) {
      store->clear();
      model.clear();
      continue;
    }
    Walker& w = walkers[rng() % walkers.size()];
    switch (op) {
      case 5: {  // seek
        w.it->seek(k);
        auto lb = model.lower_bound(k);
        w.key = lb == model.end() ? std::nullopt : std::optional<std::string>(lb->first);
        break;
      }
      case 6:
      case 7: {  // next
        if (!w.key) break;  // next() past the end is not allowed
        std::optional<std::string> at = standsOn(w);
        ASSERT_EQ(w.it->valid(), at.has_value()) << "step " << step;
        if (!at) break;
        // On K itself: the entry after it; on K's successor (K erased): that successor.
        auto after = model.count(*w.key) ? model.upper_bound(*w.key) : model.lower_bound(*w.key);
        w.it->next();
        w.key = after == model.end() ? std::nullopt : std::optional<std::string>(after->first);
        break;
      }
      case 8: {  // prev: the last entry below K (K present or not); from past the end, the last
        auto before = w.key ? model.lower_bound(*w.key) : model.end();
        w.it->prev();
        w.key = before == model.begin() ? std::nullopt : std::optional<std::string>(std::prev(before)->first);
        break;
      }
      default:
        break;
    }
    std::optional<std::string> at = standsOn(w);
    ASSERT_EQ(w.it->valid(), at.has_value()) << "step " << step;
    if (at) {
      ASSERT_EQ(w.it->key(), *at) << "step " << step;
      ASSERT_EQ(w.it->value(), model[*at]) << "step " << step;
    }
  }
}

TEST(MemoryKVStore, EmptyAndLongValues) {
  auto store = newMemoryKVStore();
  auto it = store->newIterator();
  it->seekToFirst();
  EXPECT_FALSE(it->valid());
  it->seekToLast();
  EXPECT_FALSE(it->valid());
  store->erase("absent");
  EXPECT_FALSE(store->get("absent").has_value());
  std::string big(100000, 'x');
  store->put("", big);  // the empty key sorts first
  store->put("a", "");
  EXPECT_EQ(*store->get(""), big);
  EXPECT_EQ(*store->get("a"), "");
  store->put("", "small");
  EXPECT_EQ(*store->get(""), "small");
  it->seekToFirst();
  EXPECT_EQ(it->key(), "");
}

}  // namespace
}  // namespace optic
