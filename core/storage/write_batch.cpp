// WriteBatch (write_batch.h): appending encodes straight into rep_; iterate() decodes it back.
#include "core/storage/write_batch.h"

#include "core/common/error.h"
#include "core/storage/kv_store.h"
#include "core/storage/varint.h"

namespace optic {
namespace {

enum : uint8_t { kPut = 1, kErase = 2, kEraseRange = 3 };

[[noreturn]] void malformed() { fail(ErrorCode::kInternal, "malformed write batch"); }

std::string_view field(std::string_view& in) {
  std::optional<std::string_view> s = getLengthPrefixed(in);
  if (!s) malformed();
  return *s;
}

// Decodes `rep`, calling `h` per operation (null: validate only); returns the operation count.
size_t decode(std::string_view rep, WriteBatch::Handler* h) {
  size_t n = 0;
  while (!rep.empty()) {
    uint8_t tag = static_cast<uint8_t>(rep[0]);
    rep.remove_prefix(1);
    std::string_view a = field(rep);
    switch (tag) {
      case kPut: {
        std::string_view v = field(rep);
        if (h) h->put(a, v);
        break;
      }
      case kErase:
        if (h) h->erase(a);
        break;
      case kEraseRange: {
        std::string_view end = field(rep);
        if (h) h->eraseRange(a, end);
        break;
      }
      default:
        malformed();
    }
    ++n;
  }
  return n;
}

class StoreApplier final : public WriteBatch::Handler {
 public:
  explicit StoreApplier(KVStore& store) : store_(store) {}
  void put(std::string_view key, std::string_view value) override { store_.put(key, value); }
  void erase(std::string_view key) override { store_.erase(key); }
  void eraseRange(std::string_view begin, std::string_view end) override {
    auto it = store_.newIterator();
    it->seek(begin);
    while (it->valid() && it->key() < end) {
      std::string key(it->key());
      it->next();  // step off before erasing: erasing the current key invalidates the iterator
      store_.erase(key);
    }
  }

 private:
  KVStore& store_;
};

}  // namespace

void WriteBatch::put(std::string_view key, std::string_view value) {
  rep_ += static_cast<char>(kPut);
  putLengthPrefixed(key, rep_);
  putLengthPrefixed(value, rep_);
  ++count_;
}

void WriteBatch::erase(std::string_view key) {
  rep_ += static_cast<char>(kErase);
  putLengthPrefixed(key, rep_);
  ++count_;
}

void WriteBatch::eraseRange(std::string_view begin, std::string_view end) {
  rep_ += static_cast<char>(kEraseRange);
  putLengthPrefixed(begin, rep_);
  putLengthPrefixed(end, rep_);
  ++count_;
}

void WriteBatch::clear() {
  rep_.clear();
  count_ = 0;
}

void WriteBatch::iterate(Handler& handler) const { decode(rep_, &handler); }

WriteBatch WriteBatch::fromRep(std::string rep) {
  WriteBatch b;
  b.count_ = decode(rep, nullptr);
  b.rep_ = std::move(rep);
  return b;
}

void applyBatch(const WriteBatch& batch, KVStore& store) {
  StoreApplier applier(store);
  batch.iterate(applier);
}

}  // namespace optic
