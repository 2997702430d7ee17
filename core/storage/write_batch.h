// WriteBatch: the puts and deletes of one commit, in order, as one serialized byte string.
//
// A commit's effect on the persistent store (rows, index entries, catalog entries of every
// store table it touched) is exactly one WriteBatch handed to the PersistenceSink
// (persistence.h), so a sink can make it durable all-or-nothing: the file store appends it as
// one checksummed log record, the IndexedDB bridge applies it in one readwrite transaction.
//
// Operations apply in the order they were added, so a later operation on the same key wins.
// `eraseRange` exists because dropping or renaming a table erases a whole store: the batch says
// so in one operation instead of listing keys the engine may no longer have (IndexedDB deletes a
// key range natively, IDBObjectStore.delete(IDBKeyRange)).
//
// The serialized form (rep) is: per operation a tag byte, then length-prefixed byte strings
//   1 put: key, value | 2 erase: key | 3 eraseRange: begin, end (half-open [begin, end))
// and nothing else; fromRep() validates it completely.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace optic {

class KVStore;

class WriteBatch {
 public:
  void put(std::string_view key, std::string_view value);
  void erase(std::string_view key);
  void eraseRange(std::string_view begin, std::string_view end);
  void clear();

  size_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  const std::string& rep() const { return rep_; }

  // Receives the operations in order (iterate()).
  class Handler {
   public:
    virtual ~Handler() = default;
    virtual void put(std::string_view key, std::string_view value) = 0;
    virtual void erase(std::string_view key) = 0;
    virtual void eraseRange(std::string_view begin, std::string_view end) = 0;
  };
  void iterate(Handler& handler) const;

  // The batch a rep() came from; throws Error(kInternal) when `rep` is malformed.
  static WriteBatch fromRep(std::string rep);

 private:
  std::string rep_;
  size_t count_ = 0;
};

// Applies the batch to an ordered store, in order.
void applyBatch(const WriteBatch& batch, KVStore& store);

}  // namespace optic
