// JsStatement (statement_binding.h).
#include "wasm/statement_binding.h"

#include <map>

#include "core/api/json_text.h"
#include "wasm/wire.h"

using emscripten::val;

namespace optic::wasm {

uintptr_t JsStatement::paramBuffer(uint32_t size) {
  if (in_.size() < size) in_.resize(size);
  return reinterpret_cast<uintptr_t>(in_.data());
}

int JsStatement::bindEncoded() {
  return errors_.guard([&] {
    bindBlock();
    return 0;
  });
}

int JsStatement::clearBindings() {
  return errors_.guard([&] {
    stmt_->clearBindings();
    return 0;
  });
}

int JsStatement::run(bool withParams) {
  return errors_.guard([&] {
    if (withParams) bindBlock();
    struct ResetOnExit {
      Statement& s;
      ~ResetOnExit() { s.reset(); }
    } resetOnExit{*stmt_};
    while (stmt_->step()) {
    }
    return static_cast<int>(stmt_->changes());
  });
}

int JsStatement::stepBatch(int max) {
  out_.clear();
  return errors_.guard([&] {
    int n = 0;
    while (n < max && stmt_->step()) {
      for (const Value& v : stmt_->row()) encodeValue(v, out_);
      ++n;
    }
    return n;
  });
}

int JsStatement::reset() {
  return errors_.guard([&] {
    stmt_->reset();
    return 0;
  });
}

int JsStatement::interrupt() {
  return errors_.guard([&] {
    stmt_->interrupt();
    return 0;
  });
}

val JsStatement::columnNames() const { return stringArray(stmt_->columnNames()); }
val JsStatement::parameterNames() const { return stringArray(stmt_->parameterNames()); }

std::string JsStatement::getChangeScope(bool withParams) {
  std::string out;
  errors_.guard([&] {
    std::map<ParamIndex, Value> params;
    if (withParams) decodeParams(in_, [&](int position, Value v) { params[int64_t{position}] = std::move(v); });
    out = serializeChangeScopeText(stmt_->getChangeScope(params));
    return 0;
  });
  return out;
}

void JsStatement::bindBlock() {
  decodeParams(in_, [&](int position, Value v) { stmt_->bind(position, std::move(v)); });
}

}  // namespace optic::wasm
