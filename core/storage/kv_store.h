// KVStore: an ordered map of byte keys to byte values, the only storage the engine writes to.
//
// Keys compare with memcmp (std::string's operator<), so the order-preserving key codec
// (core/common/key_codec.h) makes key order equal SQL order. Every table, index and (later)
// catalog entry lives in one KVStore of its own. Writes are synchronous and immediately visible;
// atomicity across statements and transactions comes from the undo log (transaction.h), and
// durability from the persistence sink that receives each commit's write batch (issue 4).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace optic {

class KVIterator {
 public:
  virtual ~KVIterator() = default;
  virtual bool valid() const = 0;
  virtual void seek(std::string_view target) = 0;  // first key >= target
  virtual void seekToFirst() = 0;
  virtual void seekToLast() = 0;
  virtual void next() = 0;
  virtual void prev() = 0;  // from the first key: becomes invalid
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
};

class KVStore {
 public:
  virtual ~KVStore() = default;
  virtual std::optional<std::string> get(std::string_view key) const = 0;
  // The same into a caller's buffer (its capacity reused): false, and `value` untouched, when absent.
  virtual bool get(std::string_view key, std::string* value) const = 0;
  virtual bool contains(std::string_view key) const = 0;
  virtual void put(std::string_view key, std::string_view value) = 0;
  virtual void erase(std::string_view key) = 0;
  // put (a value) or erase (nullopt) in one lookup, returning the key's previous value.
  virtual std::optional<std::string> exchange(std::string_view key, std::optional<std::string_view> value) = 0;
  virtual void clear() = 0;
  virtual size_t size() const = 0;
  // An iterator stays usable across writes to other keys; erasing its current key invalidates it.
  virtual std::unique_ptr<KVIterator> newIterator() const = 0;
  // A lookup hint that never changes contents: until reset to null, a lookup of a key here (get,
  // contains, an iterator's seek) may look it up in `follower` too, in the same pass, when the
  // next write of that key goes there (a materialized view's backing keyed like its source), so
  // that write finds its place without a second cold lookup. `follower` must outlive the pairing.
  virtual void setFollower(const KVStore* follower) {}
};

std::unique_ptr<KVStore> newMemoryKVStore();

}  // namespace optic
