// The in-memory KVStore: an ordered map of byte strings with transparent string_view lookups.
//
// Keys compare in memcmp order (the order-preserving codec relies on it), eight bytes at a time:
// every key of a table or index shares its leading bytes with its neighbours, and in wasm memcmp
// is a byte loop, so a word-wise compare is what keeps lookups cheap there (and natively it
// saves the call for short keys).
//
// Keys live inside the map node when they are short (StoredKey): a row key of one integer
// column is 17 bytes, past std::string's inline capacity, and a descent that chased a second
// pointer per level to compare keys paid a cache miss twice per level on large tables.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <tuple>

#include "core/storage/kv_store.h"

namespace optic {
namespace {

static_assert(std::endian::native == std::endian::little, "KeyLess loads words little-endian");

struct KeyLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const {
    const size_t n = std::min(a.size(), b.size());
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t x, y;
      std::memcpy(&x, a.data() + i, 8);
      std::memcpy(&y, b.data() + i, 8);
      if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y);  // big-endian = byte order
    }
    for (; i < n; ++i) {
      if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
    }
    return a.size() < b.size();
  }
};

// A key stored inline up to kInline bytes, on the heap beyond; immutable once made.
class StoredKey {
 public:
  explicit StoredKey(std::string_view k) : size_(k.size()) {
    char* dst = size_ <= kInline ? inline_ : (heap_ = new char[size_]);
    if (size_) std::memcpy(dst, k.data(), size_);
  }
  StoredKey(const StoredKey&) = delete;
  StoredKey& operator=(const StoredKey&) = delete;
  ~StoredKey() {
    if (size_ > kInline) delete[] heap_;
  }
  operator std::string_view() const { return {size_ <= kInline ? inline_ : heap_, size_}; }

 private:
  static constexpr size_t kInline = 32;
  size_t size_;
  union {
    char inline_[kInline];
    char* heap_;
  };
};

using Map = std::map<StoredKey, std::string, KeyLess>;

class MemoryIterator final : public KVIterator {
 public:
  explicit MemoryIterator(const Map& map) : map_(map), it_(map.end()) {}
  bool valid() const override { return it_ != map_.end(); }
  void seek(std::string_view target) override { it_ = map_.lower_bound(target); }
  void seekToFirst() override { it_ = map_.begin(); }
  void seekToLast() override { it_ = map_.empty() ? map_.end() : std::prev(map_.end()); }
  void next() override { ++it_; }
  void prev() override { it_ = it_ == map_.begin() ? map_.end() : std::prev(it_); }
  std::string_view key() const override { return std::string_view(it_->first); }
  std::string_view value() const override { return it_->second; }

 private:
  const Map& map_;
  Map::const_iterator it_;
};

class MemoryKVStore final : public KVStore {
 public:
  std::optional<std::string> get(std::string_view key) const override {
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  bool get(std::string_view key, std::string* value) const override {
    auto it = map_.find(key);
    if (it == map_.end()) return false;
    value->assign(it->second);
    return true;
  }
  bool contains(std::string_view key) const override { return map_.find(key) != map_.end(); }
  void put(std::string_view key, std::string_view value) override {
    auto it = map_.lower_bound(key);  // one descent for both the update and the insert
    if (it != map_.end() && std::string_view(it->first) == key) it->second.assign(value);
    else map_.emplace_hint(it, std::piecewise_construct, std::forward_as_tuple(key), std::forward_as_tuple(value));
  }
  void erase(std::string_view key) override {
    auto it = map_.find(key);
    if (it != map_.end()) map_.erase(it);
  }
  std::optional<std::string> exchange(std::string_view key, std::optional<std::string_view> value) override {
    auto it = map_.lower_bound(key);  // one descent: read the previous value, then write or erase
    if (it == map_.end() || std::string_view(it->first) != key) {
      if (value) map_.emplace_hint(it, std::piecewise_construct, std::forward_as_tuple(key), std::forward_as_tuple(*value));
      return std::nullopt;
    }
    std::optional<std::string> previous = std::move(it->second);
    if (value) it->second.assign(*value);
    else map_.erase(it);
    return previous;
  }
  void clear() override { map_.clear(); }
  size_t size() const override { return map_.size(); }
  std::unique_ptr<KVIterator> newIterator() const override {
    return std::make_unique<MemoryIterator>(map_);
  }

 private:
  Map map_;
};

}  // namespace

std::unique_ptr<KVStore> newMemoryKVStore() { return std::make_unique<MemoryKVStore>(); }

}  // namespace optic
