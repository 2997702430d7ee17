// The in-memory KVStore: a std::map with transparent string_view lookups.
#include <map>

#include "core/storage/kv_store.h"

namespace optic {
namespace {

using Map = std::map<std::string, std::string, std::less<>>;

class MemoryIterator final : public KVIterator {
 public:
  explicit MemoryIterator(const Map& map) : map_(map), it_(map.end()) {}
  bool valid() const override { return it_ != map_.end(); }
  void seek(std::string_view target) override { it_ = map_.lower_bound(target); }
  void seekToFirst() override { it_ = map_.begin(); }
  void seekToLast() override { it_ = map_.empty() ? map_.end() : std::prev(map_.end()); }
  void next() override { ++it_; }
  void prev() override { it_ = it_ == map_.begin() ? map_.end() : std::prev(it_); }
  std::string_view key() const override { return it_->first; }
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
  bool contains(std::string_view key) const override { return map_.find(key) != map_.end(); }
  void put(std::string_view key, std::string_view value) override {
    auto it = map_.find(key);
    if (it == map_.end()) map_.emplace(std::string(key), std::string(value));
    else it->second.assign(value);
  }
  void erase(std::string_view key) override {
    auto it = map_.find(key);
    if (it != map_.end()) map_.erase(it);
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
