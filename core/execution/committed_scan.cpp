// CommittedScanOp (committed_scan.h).
#include "core/execution/committed_scan.h"

#include <map>

#include "core/storage/row_codec.h"

namespace optic {

void CommittedScanOp::open(ExecState&, const EvalContext*) {
  std::map<std::string, std::string> snapshot;
  KVStore& store = table_->rows();
  std::unique_ptr<KVIterator> it = store.newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) snapshot.emplace(std::string(it->key()), std::string(it->value()));
  for (auto& [key, original] : txn_.originals(&store)) {
    if (original) snapshot[key] = *original;
    else snapshot.erase(key);
  }
  rows_.clear();
  rows_.reserve(snapshot.size());
  for (auto& [key, value] : snapshot) rows_.push_back(std::move(value));
  pos_ = 0;
}

bool CommittedScanOp::next(Row& out) {
  if (pos_ >= rows_.size()) return false;
  decodeRow(rows_[pos_++], out);
  return true;
}

}  // namespace optic
