// Lens advisory governance (views.md §4.4): acknowledgements and escalation policy.
//
// An advisory the prover emits can be acknowledged in source with a tag on the logical table
// (or on the constraint it is sited at): `"quereus.lens.ack.<code>[:<target>]" =
// 'rationale[#fp=<digest>]'` (`<code>` with or without its `lens.` prefix; `<target>` a column or
// constraint the advisory names). Without `#fp=` the acknowledgement is unconditional; with it,
// it holds while the advisory's fingerprint (a digest of the facts behind it) is unchanged and
// re-surfaces otherwise. An empty rationale acknowledges nothing. The table's
// `quereus.lens.policy.error-on` (CSV of codes) turns matching advisories into errors whatever
// their acknowledgement; `quereus.lens.policy.require-ack` turns un-acknowledged ones into errors.
// A policy naming a code that is no advisory code is itself an error.
#pragma once

#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/catalog/lens.h"
#include "core/ddl/lens_prover.h"

namespace optic {

struct LensGovernance {
  std::vector<LensDiagnostic> errors;    // escalations (block the deploy)
  std::vector<LensAdvisory> advisories;  // every advisory with its status
};

LensGovernance governAdvisories(const TableSchema& logical, const std::vector<LensDiagnostic>& warnings);

// `hash:<16 hex>` of the advisory's code, table and facts: what `#fp=` pins.
std::string advisoryFingerprint(const LensDiagnostic& d);

}  // namespace optic
