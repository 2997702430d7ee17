// Fuzz target: the parser. Any text either parses or fails with optic::Error; a crash, a
// sanitizer report, an exception of another type or a hang is a bug. Queries that parse are
// printed back (the canonical text view and materialized-view bodies are stored as) and the
// printed text parsed again.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/common/error.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view sql(reinterpret_cast<const char*>(data), size);
  try {
    for (const optic::ast::StatementPtr& s : optic::parseSql(sql)) {
      if (s->kind != optic::ast::StatementKind::kSelect || !s->select) continue;
      try {
        optic::parseSql(optic::printSelect(*s->select));
      } catch (const optic::Error&) {
      }
    }
  } catch (const optic::Error&) {
  }
  return 0;
}
