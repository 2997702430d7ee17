// The B+tree of btree.h. Nodes hold trivially copyable Slots and move them with memcpy/memmove;
// a Slot's heap bytes belong to whichever node array holds the Slot, and are freed only by
// release() (on erase, overwrite and destroy), never by a destructor.
#include "core/storage/btree.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <type_traits>

namespace optic {
namespace {

static_assert(std::endian::native == std::endian::little, "lessBytes loads words little-endian");

// Bytewise a < b, eight bytes at a time: keys of one table share their leading bytes, and in
// wasm memcmp is a byte loop.
bool lessBytes(std::string_view a, std::string_view b) {
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

// A byte string inline up to kInline bytes, on the heap beyond (the pointer kept in buf_).
class Slot {
 public:
  static Slot make(std::string_view s) {
    Slot slot;
    slot.fill(s);
    return slot;
  }
  std::string_view view() const { return {size_ <= kInline ? buf_ : heap(), size_}; }
  // Asks the cache for an out-of-line value's bytes ahead of their read.
  void prefetch() const {
    if (size_ > kInline) __builtin_prefetch(heap());
  }
  void release() {
    if (size_ > kInline) delete[] heap();
  }
  void assign(std::string_view s) {
    if (s.size() == size_ && size_ > kInline) {  // a same-size rewrite keeps its buffer
      std::memcpy(heap(), s.data(), s.size());
      return;
    }
    release();
    fill(s);
  }

 private:
  static constexpr uint32_t kInline = 28;
  char* heap() const {
    char* p;
    std::memcpy(&p, buf_, sizeof p);
    return p;
  }
  void fill(std::string_view s) {
    size_ = static_cast<uint32_t>(s.size());
    char* dst = buf_;
    if (size_ > kInline) {
      dst = new char[size_];
      std::memcpy(buf_, &dst, sizeof dst);
    }
    if (size_) std::memcpy(dst, s.data(), size_);
  }
  char buf_[kInline];
  uint32_t size_;
};
static_assert(std::is_trivially_copyable_v<Slot> && sizeof(Slot) == 32);

constexpr int kLeafCap = 32;
// Entries a cursor asks the cache for ahead of its position (WebAssembly has no prefetch).
#if defined(__wasm__)
constexpr int kPrefetchAhead = 0;
#else
constexpr int kPrefetchAhead = 4;
#endif
constexpr int kInnerCap = 32;
constexpr int kLeafMin = kLeafCap / 4;  // below this an erase merges or borrows
constexpr int kInnerMin = kInnerCap / 4;

// The first i with !(keys[i] < key).
int lowerIndex(const Slot* keys, int n, std::string_view key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (lessBytes(keys[mid].view(), key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The first i with key < keys[i]: the child of an inner node that holds `key`.
int upperIndex(const Slot* keys, int n, std::string_view key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (lessBytes(key, keys[mid].view())) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

template <typename T>
void shiftRight(T* a, int from, int count) {  // a[from, count) -> a[from + 1, count + 1)
  std::memmove(static_cast<void*>(a + from + 1), a + from, sizeof(T) * (count - from));
}
template <typename T>
void shiftLeft(T* a, int from, int count) {  // a[from + 1, count) -> a[from, count - 1)
  std::memmove(static_cast<void*>(a + from), a + from + 1, sizeof(T) * (count - from - 1));
}
template <typename T>
void copyN(T* to, const T* from, int n) {
  if (n > 0) std::memcpy(static_cast<void*>(to), from, sizeof(T) * n);
}

// Asks for every cache line of a node's keys at once: a cold node's binary search then waits for
// one miss, not one per probe (its probes depend on each other).
void prefetchKeys(const Slot* keys, int count) {
  const char* p = reinterpret_cast<const char*>(keys);
  const char* end = p + sizeof(Slot) * count;
#if defined(__wasm__)
  // wasm has no prefetch (the builtin compiles to nothing); plain loads of every line, independent
  // of each other, make the CPU fetch them together all the same. Loads can trap, so the engine
  // keeps them; the empty asm keeps clang from dropping them first.
  unsigned char seen = 0;
  for (; p < end; p += 64) seen |= static_cast<unsigned char>(*p);
  asm volatile("" : : "r"(seen));
#else
  for (; p < end; p += 64) __builtin_prefetch(p);
#endif
}

}  // namespace

struct BTree::Node {
  explicit Node(bool isLeaf) : leaf(isLeaf) {}
  int count = 0;
  const bool leaf;
};

struct BTree::Leaf : Node {
  Leaf() : Node(true) {}
  Leaf* prev = nullptr;
  Leaf* next = nullptr;
  Slot keys[kLeafCap];
  Slot values[kLeafCap];
};

struct BTree::Inner : Node {
  Inner() : Node(false) {}
  Slot keys[kInnerCap];
  Node* children[kInnerCap + 1];
};

struct BTree::PathStep {
  Inner* node;
  int child;  // which child of node the descent took
};

BTree::~BTree() { destroy(root_); }

void BTree::destroy(Node* node) {
  if (!node) return;
  if (node->leaf) {
    Leaf* leaf = static_cast<Leaf*>(node);
    for (int i = 0; i < leaf->count; ++i) {
      leaf->keys[i].release();
      leaf->values[i].release();
    }
    delete leaf;
    return;
  }
  Inner* inner = static_cast<Inner*>(node);
  for (int i = 0; i < inner->count; ++i) inner->keys[i].release();
  for (int i = 0; i <= inner->count; ++i) destroy(inner->children[i]);
  delete inner;
}

void BTree::clear() {
  destroy(root_);
  root_ = nullptr;
  tail_ = nullptr;
  size_ = 0;
  ++version_;
}

BTree::Leaf* BTree::descend(std::string_view key, PathStep* path, int* depth) const {
  Node* node = root_;
  int d = 0;
  while (!node->leaf) {
    Inner* inner = static_cast<Inner*>(node);
    prefetchKeys(inner->keys, inner->count);
    int i = upperIndex(inner->keys, inner->count, key);
    assert(d < kMaxDepth);
    path[d++] = {inner, i};
    node = inner->children[i];
  }
  *depth = d;
  Leaf* leaf = static_cast<Leaf*>(node);
  prefetchKeys(leaf->keys, leaf->count);
  return leaf;
}

// Past the last key (an append's probe): the tail leaf answers without a descent.
bool BTree::pastTail(std::string_view key) const {
  return tail_ && tail_->count > 0 && lessBytes(tail_->keys[tail_->count - 1].view(), key);
}

std::pair<const BTree::Leaf*, int> BTree::lowerBound(std::string_view key) const {
  if (!root_) return {nullptr, 0};
  if (pastTail(key)) {
    hint_ = {tail_, tail_->count, version_};
    return {nullptr, 0};
  }
  const Node* node = root_;
  while (!node->leaf) {
    const Inner* inner = static_cast<const Inner*>(node);
    prefetchKeys(inner->keys, inner->count);
    node = inner->children[upperIndex(inner->keys, inner->count, key)];
  }
  const Leaf* leaf = static_cast<const Leaf*>(node);
  prefetchKeys(leaf->keys, leaf->count);
  int i = lowerIndex(leaf->keys, leaf->count, key);
  hint_ = {leaf, i, version_};
  if (i < leaf->count) return {leaf, i};
  return {leaf->next, 0};  // leaves other than the root are never empty
}

// Both descents in lockstep: each level asks for the lines of this tree's node and the
// follower's together, so two cold descents wait for memory about as long as one (wasm has no
// prefetch; independent loads overlap all the same). The follower keeps its result as its hint.
std::pair<const BTree::Leaf*, int> BTree::lowerBound(std::string_view key, const BTree& follower) const {
  if (!root_ || !follower.root_ || pastTail(key) || follower.pastTail(key)) {
    follower.lowerBound(key);
    return lowerBound(key);
  }
  const Node* x = root_;
  const Node* y = follower.root_;
  while (!x->leaf || !y->leaf) {
    const Inner* ix = x->leaf ? nullptr : static_cast<const Inner*>(x);
    const Inner* iy = y->leaf ? nullptr : static_cast<const Inner*>(y);
    if (ix) prefetchKeys(ix->keys, ix->count);
    if (iy) prefetchKeys(iy->keys, iy->count);
    if (ix) x = ix->children[upperIndex(ix->keys, ix->count, key)];
    if (iy) y = iy->children[upperIndex(iy->keys, iy->count, key)];
  }
  const Leaf* lx = static_cast<const Leaf*>(x);
  const Leaf* ly = static_cast<const Leaf*>(y);
  prefetchKeys(lx->keys, lx->count);
  prefetchKeys(ly->keys, ly->count);
  int i = lowerIndex(lx->keys, lx->count, key);
  follower.hint_ = {ly, lowerIndex(ly->keys, ly->count, key), follower.version_};
  hint_ = {lx, i, version_};
  if (i < lx->count) return {lx, i};
  return {lx->next, 0};
}

const BTree::Leaf* BTree::firstLeaf() const {
  const Node* node = root_;
  if (!node) return nullptr;
  while (!node->leaf) node = static_cast<const Inner*>(node)->children[0];
  const Leaf* leaf = static_cast<const Leaf*>(node);
  return leaf->count ? leaf : nullptr;
}

const BTree::Leaf* BTree::lastLeaf() const {
  const Node* node = root_;
  if (!node) return nullptr;
  while (!node->leaf) {
    const Inner* inner = static_cast<const Inner*>(node);
    node = inner->children[inner->count];
  }
  const Leaf* leaf = static_cast<const Leaf*>(node);
  return leaf->count ? leaf : nullptr;
}

std::optional<std::string_view> BTree::find(std::string_view key, const BTree* follower) const {
  auto [leaf, i] = follower ? lowerBound(key, *follower) : lowerBound(key);
  if (!leaf || leaf->keys[i].view() != key) return std::nullopt;
  return leaf->values[i].view();
}

void BTree::exchange(std::string_view key, std::optional<std::string_view> value,
                     std::optional<std::string>* previous) {
  if (previous) previous->reset();
  if (writeAtHint(key, value, previous)) return;
  if (!root_) {
    if (!value) return;
    root_ = tail_ = new Leaf;
  }
  if (pastTail(key)) {
    if (!value) return;  // erasing a key above them all: nothing there
    if (tail_->count < kLeafCap) {
      insertAt(nullptr, 0, tail_, tail_->count, key, *value);  // an append with room: no descent
      return;
    }
  }
  PathStep path[kMaxDepth];
  int depth = 0;
  Leaf* leaf = descend(key, path, &depth);
  int pos = lowerIndex(leaf->keys, leaf->count, key);
  bool found = pos < leaf->count && leaf->keys[pos].view() == key;
  if (found && previous) previous->emplace(leaf->values[pos].view());
  if (found && value) leaf->values[pos].assign(*value);
  else if (found) eraseAt(path, depth, leaf, pos);
  else if (value) insertAt(path, depth, leaf, pos, key, *value);
}

// The write at the hinted position, when the hint still holds and the write changes no node's
// shape: the key is there (a rewrite, or an erase leaving the leaf at least kLeafMin), or it
// belongs exactly there (its neighbours bracket it; at a leaf's edge only at the tree's edge,
// where no separator can disagree) and the leaf has room. False: nothing done.
bool BTree::writeAtHint(std::string_view key, std::optional<std::string_view> value,
                        std::optional<std::string>* previous) {
  if (!hint_.leaf || hint_.version != version_) return false;
  Leaf* leaf = const_cast<Leaf*>(hint_.leaf);
  int pos = hint_.index;
  if (pos < leaf->count && leaf->keys[pos].view() == key) {
    if (value) {
      if (previous) previous->emplace(leaf->values[pos].view());
      leaf->values[pos].assign(*value);
      return true;
    }
    if (leaf->count <= kLeafMin && leaf != root_) return false;
    if (previous) previous->emplace(leaf->values[pos].view());
    eraseAt(nullptr, 0, leaf, pos);  // depth 0: no rebalance
    return true;
  }
  if (!value || leaf->count == kLeafCap) return false;
  bool fitsLeft = pos > 0 ? lessBytes(leaf->keys[pos - 1].view(), key) : leaf->prev == nullptr;
  bool fitsRight = pos < leaf->count ? lessBytes(key, leaf->keys[pos].view()) : leaf->next == nullptr;
  if (!fitsLeft || !fitsRight) return false;
  insertAt(nullptr, 0, leaf, pos, key, *value);  // room in the leaf: no split
  return true;
}

void BTree::insertAt(PathStep* path, int depth, Leaf* leaf, int pos, std::string_view key, std::string_view value) {
  ++size_;
  ++version_;
  if (leaf->count == kLeafCap) {
    // Split. An insert past the last entry (ascending keys, the common load order) keeps this
    // leaf full and starts the new one, so sequential loads pack leaves instead of half-filling them.
    Leaf* right = new Leaf;
    int keep = pos == kLeafCap ? kLeafCap : kLeafCap / 2;
    right->count = kLeafCap - keep;
    copyN(right->keys, leaf->keys + keep, right->count);
    copyN(right->values, leaf->values + keep, right->count);
    leaf->count = keep;
    right->prev = leaf;
    right->next = leaf->next;
    if (leaf->next) leaf->next->prev = right;
    leaf->next = right;
    if (leaf == tail_) tail_ = right;
    if (pos >= keep) {
      pos -= keep;
      leaf = right;
    }
    shiftRight(leaf->keys, pos, leaf->count);
    shiftRight(leaf->values, pos, leaf->count);
    leaf->keys[pos] = Slot::make(key);
    leaf->values[pos] = Slot::make(value);
    ++leaf->count;
    addSeparator(path, depth - 1, right->keys[0].view(), right);
    return;
  }
  shiftRight(leaf->keys, pos, leaf->count);
  shiftRight(leaf->values, pos, leaf->count);
  leaf->keys[pos] = Slot::make(key);
  leaf->values[pos] = Slot::make(value);
  ++leaf->count;
}

// Puts `separator` and its right-hand node into the inner node at path[level], just after the
// child that split; splits that node in turn when it is full (a new root above level 0).
void BTree::addSeparator(PathStep* path, int level, std::string_view separator, Node* right) {
  if (level < 0) {
    Inner* root = new Inner;
    root->count = 1;
    root->keys[0] = Slot::make(separator);
    root->children[0] = root_;
    root->children[1] = right;
    root_ = root;
    return;
  }
  Inner* node = path[level].node;
  int i = path[level].child;
  if (node->count < kInnerCap) {
    shiftRight(node->keys, i, node->count);
    shiftRight(node->children, i + 1, node->count + 1);
    node->keys[i] = Slot::make(separator);
    node->children[i + 1] = right;
    ++node->count;
    return;
  }
  Slot keys[kInnerCap + 1];
  Node* children[kInnerCap + 2];
  copyN(keys, node->keys, i);
  keys[i] = Slot::make(separator);
  copyN(keys + i + 1, node->keys + i, kInnerCap - i);
  copyN(children, node->children, i + 1);
  children[i + 1] = right;
  copyN(children + i + 2, node->children + i + 1, kInnerCap - i);
  // keys[mid] moves up; as for leaves, an append keeps the left node full.
  int mid = i == kInnerCap ? kInnerCap - 1 : (kInnerCap + 1) / 2;
  Inner* sibling = new Inner;
  node->count = mid;
  copyN(node->keys, keys, mid);
  copyN(node->children, children, mid + 1);
  sibling->count = kInnerCap - mid;
  copyN(sibling->keys, keys + mid + 1, sibling->count);
  copyN(sibling->children, children + mid + 1, sibling->count + 1);
  Slot up = keys[mid];
  addSeparator(path, level - 1, up.view(), sibling);
  up.release();
}

void BTree::eraseAt(PathStep* path, int depth, Leaf* leaf, int pos) {
  --size_;
  ++version_;
  leaf->keys[pos].release();
  leaf->values[pos].release();
  shiftLeft(leaf->keys, pos, leaf->count);
  shiftLeft(leaf->values, pos, leaf->count);
  --leaf->count;
  rebalanceLeaf(path, depth, leaf);
}

// An underfull leaf merges with a sibling when both fit in one, else takes entries from it.
void BTree::rebalanceLeaf(PathStep* path, int depth, Leaf* leaf) {
  if (depth == 0 || leaf->count >= kLeafMin) return;
  Inner* parent = path[depth - 1].node;
  int i = path[depth - 1].child;
  int sep = i > 0 ? i - 1 : 0;  // the separator between left and right
  Leaf* left = static_cast<Leaf*>(parent->children[sep]);
  Leaf* right = static_cast<Leaf*>(parent->children[sep + 1]);
  if (left->count + right->count <= kLeafCap) {
    copyN(left->keys + left->count, right->keys, right->count);
    copyN(left->values + left->count, right->values, right->count);
    left->count += right->count;
    left->next = right->next;
    if (right->next) right->next->prev = left;
    if (right == tail_) tail_ = left;
    delete right;
    parent->keys[sep].release();
    shiftLeft(parent->keys, sep, parent->count);
    shiftLeft(parent->children, sep + 1, parent->count + 1);
    --parent->count;
    rebalanceInner(path, depth - 1);
    return;
  }
  int move = (left->count + right->count) / 2 - left->count;  // > 0: right to left; < 0: left to right
  if (move > 0) {
    copyN(left->keys + left->count, right->keys, move);
    copyN(left->values + left->count, right->values, move);
    std::memmove(static_cast<void*>(right->keys), right->keys + move, sizeof(Slot) * (right->count - move));
    std::memmove(static_cast<void*>(right->values), right->values + move, sizeof(Slot) * (right->count - move));
  } else {
    move = -move;
    std::memmove(static_cast<void*>(right->keys + move), right->keys, sizeof(Slot) * right->count);
    std::memmove(static_cast<void*>(right->values + move), right->values, sizeof(Slot) * right->count);
    copyN(right->keys, left->keys + left->count - move, move);
    copyN(right->values, left->values + left->count - move, move);
    move = -move;
  }
  left->count += move;
  right->count -= move;
  parent->keys[sep].assign(right->keys[0].view());
}

// The same for the inner node at path[level]; an emptied root hands over to its only child.
void BTree::rebalanceInner(PathStep* path, int level) {
  Inner* node = path[level].node;
  if (level == 0) {
    if (node->count == 0) {
      root_ = node->children[0];
      delete node;
    }
    return;
  }
  if (node->count >= kInnerMin) return;
  Inner* parent = path[level - 1].node;
  int i = path[level - 1].child;
  int sep = i > 0 ? i - 1 : 0;
  Inner* left = static_cast<Inner*>(parent->children[sep]);
  Inner* right = static_cast<Inner*>(parent->children[sep + 1]);
  if (left->count + 1 + right->count <= kInnerCap) {
    left->keys[left->count] = parent->keys[sep];  // the separator comes down between them
    copyN(left->keys + left->count + 1, right->keys, right->count);
    copyN(left->children + left->count + 1, right->children, right->count + 1);
    left->count += 1 + right->count;
    delete right;
    shiftLeft(parent->keys, sep, parent->count);
    shiftLeft(parent->children, sep + 1, parent->count + 1);
    --parent->count;
    rebalanceInner(path, level - 1);
    return;
  }
  // Rotate one child through the parent's separator (the sibling has plenty to spare).
  if (left->count < right->count) {
    left->keys[left->count] = parent->keys[sep];
    left->children[left->count + 1] = right->children[0];
    ++left->count;
    parent->keys[sep] = right->keys[0];
    shiftLeft(right->keys, 0, right->count);
    shiftLeft(right->children, 0, right->count + 1);
    --right->count;
  } else {
    shiftRight(right->keys, 0, right->count);
    shiftRight(right->children, 0, right->count + 1);
    right->keys[0] = parent->keys[sep];
    right->children[0] = left->children[left->count];
    ++right->count;
    parent->keys[sep] = left->keys[left->count - 1];
    --left->count;
  }
}

// --- Cursor ---

void BTree::Cursor::place(const Leaf* leaf, int index) {
  if (leaf && index >= leaf->count) {
    leaf = leaf->next;
    index = 0;
  }
  leaf_ = leaf;
  index_ = index;
  version_ = tree_.version_;
  onSuccessor_ = false;
  if (!leaf_) return;
  key_.assign(leaf_->keys[index_].view());
  // A scan reads the values in order, and a value longer than a slot lives in its own
  // allocation: one cache miss per row unless it is asked for a few entries early.
  if constexpr (kPrefetchAhead > 0) {
    if (index_ + kPrefetchAhead < leaf_->count) leaf_->values[index_ + kPrefetchAhead].prefetch();
    else if (leaf_->next && index_ + kPrefetchAhead - leaf_->count < leaf_->next->count)
      leaf_->next->values[index_ + kPrefetchAhead - leaf_->count].prefetch();
  }
}

void BTree::Cursor::settle() const {
  if (version_ == tree_.version_) return;
  version_ = tree_.version_;
  if (!leaf_) return;  // past the end stays past the end
  auto [leaf, index] = tree_.lowerBound(key_);
  leaf_ = leaf;
  index_ = index;
  onSuccessor_ = !leaf_ || leaf_->keys[index_].view() != key_;
}

bool BTree::Cursor::valid() const {
  settle();
  return leaf_ != nullptr;
}

void BTree::Cursor::seek(std::string_view target, const BTree* follower) {
  auto [leaf, index] = follower ? tree_.lowerBound(target, *follower) : tree_.lowerBound(target);
  place(leaf, index);
}

void BTree::Cursor::seekToFirst() { place(tree_.firstLeaf(), 0); }

void BTree::Cursor::seekToLast() {
  const Leaf* leaf = tree_.lastLeaf();
  place(leaf, leaf ? leaf->count - 1 : 0);
}

void BTree::Cursor::next() {
  settle();
  if (!leaf_) return;
  if (onSuccessor_) place(leaf_, index_);
  else place(leaf_, index_ + 1);
}

void BTree::Cursor::prev() {
  settle();
  if (!leaf_) {
    seekToLast();
    return;
  }
  if (index_ > 0) {
    place(leaf_, index_ - 1);
    return;
  }
  const Leaf* before = leaf_->prev;
  if (before) place(before, before->count - 1);
  else place(nullptr, 0);
}

std::string_view BTree::Cursor::key() const {
  settle();
  return leaf_->keys[index_].view();
}

std::string_view BTree::Cursor::value() const {
  settle();
  return leaf_->values[index_].view();
}

}  // namespace optic
