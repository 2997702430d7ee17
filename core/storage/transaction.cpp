#include "core/storage/transaction.h"

namespace optic {

void Transaction::recordWrite(KVStore* store, std::string key, std::optional<std::string> previous) {
  undo_.push_back(UndoEntry{store, std::move(key), std::move(previous), nullptr});
}

void Transaction::recordUndo(std::function<void()> undo) {
  undo_.push_back(UndoEntry{nullptr, {}, std::nullopt, std::move(undo)});
}

void Transaction::rollbackTo(TransactionMark m) {
  while (undo_.size() > m.undo) {
    UndoEntry& e = undo_.back();
    if (e.store) {
      if (e.previous) e.store->put(e.key, *e.previous);
      else e.store->erase(e.key);
    } else if (e.undo) {
      e.undo();
    }
    undo_.pop_back();
  }
  if (changes_.size() > m.changes) changes_.resize(m.changes);
  if (deferred_.size() > m.deferred) deferred_.resize(m.deferred);
  std::vector<std::function<void()>> after;
  after.swap(afterRollback_);
  if (!reapply_) return;
  for (auto it = after.rbegin(); it != after.rend(); ++it) (*it)();
}

void Transaction::abandon() { abandonTo({}); }

void Transaction::abandonTo(TransactionMark m) {
  reapply_ = false;
  rollbackTo(m);
  reapply_ = true;
}

std::map<std::string, std::optional<std::string>> Transaction::originals(const KVStore* store) const {
  std::map<std::string, std::optional<std::string>> out;
  for (const UndoEntry& e : undo_) {
    if (e.store == store) out.emplace(e.key, e.previous);  // the first write keeps the original
  }
  return out;
}

std::vector<std::string> Transaction::overwritten(const KVStore* store) const {
  std::vector<std::string> out;
  for (const UndoEntry& e : undo_) {
    if (e.store == store && e.previous) out.push_back(*e.previous);
  }
  return out;
}

void Transaction::clear() {
  undo_.clear();
  // A few of the log's rows are kept, emptied, for the next statement's images (spareRow); a
  // bulk commit's rows are not worth keeping beyond that.
  constexpr size_t kSpareRows = 16;
  constexpr size_t kSpareWidth = 64;
  auto keep = [&](std::optional<Row>& row) {
    if (!row || spareRows_.size() >= kSpareRows || row->capacity() > kSpareWidth) return;
    row->clear();
    spareRows_.push_back(std::move(*row));
  };
  for (RowChange& c : changes_) {
    if (spareRows_.size() >= kSpareRows) break;
    keep(c.oldRow);
    keep(c.newRow);
  }
  changes_.clear();
  deferred_.clear();
}

Row Transaction::spareRow() {
  if (spareRows_.empty()) return Row();
  Row row = std::move(spareRows_.back());
  spareRows_.pop_back();
  return row;
}

Transaction::UndoLog Transaction::takeUndo() {
  UndoLog log = std::move(undo_);
  clear();
  return log;
}

void Transaction::revert(UndoLog log) {
  clear();
  undo_ = std::move(log);
  abandon();
}

}  // namespace optic
