// The in-memory KVStore: a BTree (btree.h) behind the KVStore interface. Its iterator is a
// BTree::Cursor, which finds its key again after a write, so it stays usable across writes to
// other keys as kv_store.h promises.
#include "core/storage/btree.h"
#include "core/storage/kv_store.h"

namespace optic {
namespace {

class MemoryIterator final : public KVIterator {
 public:
  // `follower` is the store's follower slot, read at each seek.
  MemoryIterator(const BTree& tree, const BTree* const& follower) : cursor_(tree), follower_(follower) {}
  bool valid() const override { return cursor_.valid(); }
  void seek(std::string_view target) override { cursor_.seek(target, follower_); }
  void seekToFirst() override { cursor_.seekToFirst(); }
  void seekToLast() override { cursor_.seekToLast(); }
  void next() override { cursor_.next(); }
  void prev() override { cursor_.prev(); }
  std::string_view key() const override { return cursor_.key(); }
  std::string_view value() const override { return cursor_.value(); }

 private:
  BTree::Cursor cursor_;
  const BTree* const& follower_;
};

class MemoryKVStore final : public KVStore {
 public:
  std::optional<std::string> get(std::string_view key) const override {
    std::optional<std::string_view> v = tree_.find(key, follower_);
    if (!v) return std::nullopt;
    return std::string(*v);
  }
  bool get(std::string_view key, std::string* value) const override {
    std::optional<std::string_view> v = tree_.find(key, follower_);
    if (!v) return false;
    value->assign(*v);
    return true;
  }
  bool contains(std::string_view key) const override { return tree_.find(key, follower_).has_value(); }
  void put(std::string_view key, std::string_view value) override { tree_.exchange(key, value, nullptr); }
  void erase(std::string_view key) override { tree_.exchange(key, std::nullopt, nullptr); }
  std::optional<std::string> exchange(std::string_view key, std::optional<std::string_view> value) override {
    std::optional<std::string> previous;
    tree_.exchange(key, value, &previous);
    return previous;
  }
  void clear() override { tree_.clear(); }
  size_t size() const override { return tree_.size(); }
  std::unique_ptr<KVIterator> newIterator() const override {
    return std::make_unique<MemoryIterator>(tree_, follower_);
  }
  void setFollower(const KVStore* follower) override {
    const auto* memory = dynamic_cast<const MemoryKVStore*>(follower);
    follower_ = memory && memory != this ? &memory->tree_ : nullptr;
  }

 private:
  BTree tree_;
  const BTree* follower_ = nullptr;  // setFollower
};

}  // namespace

std::unique_ptr<KVStore> newMemoryKVStore() { return std::make_unique<MemoryKVStore>(); }

}  // namespace optic
