// BTree: the ordered map of byte strings behind the in-memory KVStore, a B+tree.
//
// Why not std::map: a red-black tree spends a heap node (and a second one for a value past the
// string's inline capacity) per entry and a dependent cache miss per level. At 100k rows a
// random lookup chased ~17 nodes, and a table plus a materialized view over it no longer fit in
// the last-level cache together, so every maintained write paid two cold descents. Here entries
// sit in arrays (keys apart from values, so a binary search reads keys only), short keys and
// values are stored inline, and a lookup touches about three nodes.
//
// Invariants:
//  - keys are unique and ordered bytewise (memcmp, a prefix first), the order the key codec needs;
//  - an inner node with n keys has n+1 children; every key under children[i] is < keys[i], and
//    every key under children[i+1] is >= keys[i];
//  - all leaves are at one depth and chained in key order; only the root may be empty;
//  - version() changes whenever an entry is inserted or erased (entries may move between
//    nodes); a Cursor that sees a new version finds its key again, so it stays usable across
//    writes to other keys, and after its own key is erased it stands on the key's successor.
//  - the last lookup's leaf and position are kept as a hint while the version holds: a write
//    that follows a read of the same key (a conflict probe before an insert, a read before a
//    rewrite) skips its descent when it changes no node's shape;
//  - a lookup may name a follower tree (find, Cursor::seek): it is descended in the same pass and
//    keeps the position as its hint, so the write that follows there needs no descent either;
//  - the last leaf is known (tail_): a key above every key (ascending ids, timestamps) is looked
//    up and, while that leaf has room, inserted without a descent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace optic {

class BTree {
 public:
  BTree() = default;
  BTree(const BTree&) = delete;
  BTree& operator=(const BTree&) = delete;
  ~BTree();

  // The value at `key`; the view lasts until the next insert, erase or assignment. With a
  // `follower` (a tree keyed alike) `key` is looked up there in the same descent: the two trees'
  // cold nodes are fetched at once, and the follower keeps the position as its hint, where a
  // write of `key` then lands without a descent of its own.
  std::optional<std::string_view> find(std::string_view key, const BTree* follower = nullptr) const;
  // Puts (a value) or erases (nullopt) in one descent; the previous value goes to *previous when
  // that is non-null (reset to nullopt when the key was absent).
  void exchange(std::string_view key, std::optional<std::string_view> value,
                std::optional<std::string>* previous);
  void clear();
  size_t size() const { return size_; }
  uint64_t version() const { return version_; }

  class Cursor;
  struct Node;
  struct Leaf;
  struct Inner;

 private:
  struct PathStep;
  static constexpr int kMaxDepth = 24;  // 16^24 entries: more than memory holds

  Leaf* descend(std::string_view key, PathStep* path, int* depth) const;
  // The first entry >= key, as (leaf, index); leaf is null past the last entry.
  std::pair<const Leaf*, int> lowerBound(std::string_view key) const;
  // The same, looking `key` up in `follower` in the same descent (its hint is left there).
  std::pair<const Leaf*, int> lowerBound(std::string_view key, const BTree& follower) const;
  bool pastTail(std::string_view key) const;
  const Leaf* firstLeaf() const;
  const Leaf* lastLeaf() const;
  bool writeAtHint(std::string_view key, std::optional<std::string_view> value, std::optional<std::string>* previous);
  void insertAt(PathStep* path, int depth, Leaf* leaf, int pos, std::string_view key, std::string_view value);
  void addSeparator(PathStep* path, int level, std::string_view separator, Node* right);
  void eraseAt(PathStep* path, int depth, Leaf* leaf, int pos);
  void rebalanceLeaf(PathStep* path, int depth, Leaf* leaf);
  void rebalanceInner(PathStep* path, int level);
  static void destroy(Node* node);

  Node* root_ = nullptr;
  Leaf* tail_ = nullptr;  // the last leaf: appends (ascending keys) go there without a descent
  size_t size_ = 0;
  uint64_t version_ = 0;
  struct Hint {
    const Leaf* leaf = nullptr;
    int index = 0;  // the first entry >= the key looked up (may be leaf->count)
    uint64_t version = 0;
  };
  mutable Hint hint_;
};

// A position in a BTree, in the KVIterator style: seek, then next/prev while valid().
class BTree::Cursor {
 public:
  explicit Cursor(const BTree& tree) : tree_(tree) {}
  bool valid() const;
  void seek(std::string_view target, const BTree* follower = nullptr);  // follower: as find() has it
  void seekToFirst();
  void seekToLast();
  void next();
  void prev();  // from the first entry: becomes invalid; from past the end: the last entry
  std::string_view key() const;
  std::string_view value() const;

 private:
  void settle() const;  // finds key_ again if the tree changed since the cursor last moved
  void place(const Leaf* leaf, int index);

  const BTree& tree_;
  mutable const Leaf* leaf_ = nullptr;  // null: past the end (invalid)
  mutable int index_ = 0;
  mutable uint64_t version_ = 0;
  mutable bool onSuccessor_ = false;  // our key was erased: we stand on its successor already
  std::string key_;                   // the current key, to find it again after a write
};

}  // namespace optic
