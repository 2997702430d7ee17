// The Statement handle JS holds (js/src/statement.ts): the hot half of the bindings. A prepared
// statement's parameters arrive as a block JS writes into paramBuffer() (wasm/wire.h) and its
// rows leave as a block stepBatch() encodes, so a row or a parameter list costs one boundary
// crossing. Compiled at the build's -O3 (statement_binding.cpp), apart from bindings.cpp, which
// compiles for size: every prepared insert and every batch of rows runs through here.
//
// Every method that can fail returns an int status (kFailed) or an empty result and keeps the
// error for lastError() (error_slot.h).
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/api/database.h"
#include "wasm/error_slot.h"

namespace optic::wasm {

class JsStatement {
 public:
  explicit JsStatement(std::unique_ptr<Statement> s) : stmt_(std::move(s)) {}

  // A buffer of at least `size` bytes for the next parameter block; valid until the next call.
  uintptr_t paramBuffer(uint32_t size);
  // Binds the parameter block JS wrote into paramBuffer().
  int bindEncoded();
  int clearBindings();
  // Runs to completion discarding rows, then resets; withParams binds the parameter block first.
  // Returns the rows it changed (Statement::changes).
  int run(bool withParams);
  // Encodes up to `max` rows into the row buffer (rowsPtr/rowsLen); returns how many. Fewer than
  // max means the statement is done.
  int stepBatch(int max);
  uintptr_t rowsPtr() const { return reinterpret_cast<uintptr_t>(out_.data()); }
  uint32_t rowsLen() const { return static_cast<uint32_t>(out_.size()); }
  int reset();
  // Statement::interrupt: the execution ends as failed (the JS AbortSignal between row batches).
  int interrupt();
  emscripten::val columnNames() const;
  emscripten::val parameterNames() const;
  std::string sql() const { return std::string(stmt_->sql()); }
  // The change scope in its wire form (api-and-watch.md §4) as JSON text, with the current
  // bindings and, when withParams, the parameter block applied; "" on failure (then lastError()).
  std::string getChangeScope(bool withParams);
  emscripten::val lastError() const { return errors_.get(); }

 private:
  void bindBlock();
  std::unique_ptr<Statement> stmt_;
  std::string in_, out_;
  ErrorSlot errors_;
};

}  // namespace optic::wasm
