// What introspection says of the function registry: `function_info([name])` and the `function`
// rows of `schema()` (test-corpus.md §4; the reference's schema.ts).
//
// Invariants: one row per registration as FunctionRegistry::listing() gives it (name, then
// argument count); `flags` is the reference's SQLite-style word, UTF8 (1) plus DETERMINISTIC
// (0x800) for a deterministic function; the signature reads `FUNCTION name(?, ?)`, `(...)` for a
// variadic one. The functions belong to `main` (where the reference registers its built-ins).
#pragma once

#include <vector>

#include "core/execution/function_registry.h"

namespace optic {

// `function_info([name])`: name, num_args, type, deterministic, flags, signature.
void registerFunctionInfo(FunctionRegistry& r);

// The schema() rows of the functions: main, 'function', name, name, signature, NULL.
std::vector<Row> functionSchemaRows(const FunctionRegistry& r);

}  // namespace optic
