// Names: SQL identifiers compare case-insensitively, folding ASCII letters only (as the reference
// does: a non-ASCII letter is its own case). This is the one place that folds a name; catalog
// keys, function lookups, the parser's keywords and the printers all go through it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace optic {

// The name with ASCII A–Z lower-cased; every other byte as it is.
std::string lowerName(std::string_view s);
// Appends lowerName(s) to out (no temporary: used where names are keyed per row write).
void appendLowerName(std::string_view s, std::string& out);
// Whether two names are the same name (lowerName(a) == lowerName(b)), without building either.
bool sameName(std::string_view a, std::string_view b);
// The names of a comma-separated list in a tag value ("a, b"): each trimmed of spaces, empty
// ones left out.
std::vector<std::string> splitNameList(std::string_view text);

}  // namespace optic
