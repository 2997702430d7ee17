// Lens advisory governance (lens_ack.h).
#include "core/ddl/lens_ack.h"

#include <algorithm>
#include <optional>

#include "core/common/digest.h"
#include "core/common/names.h"
#include "core/common/value_ops.h"

namespace optic {
namespace {

const char* const kAckPrefix = "quereus.lens.ack.";
const std::vector<std::string> kAdvisoryCodes = {"lens.pk-not-reconstructible", "lens.no-backing-index",
                                                 "lens.no-answering-structure", "lens.partial-override",
                                                 "lens.getput-lossy", "lens.over-restrictive-basis-key"};

std::string withPrefix(std::string code) {
  code = lowerName(code);
  while (!code.empty() && code.front() == ' ') code.erase(code.begin());
  while (!code.empty() && code.back() == ' ') code.pop_back();
  return code.rfind("lens.", 0) == 0 ? code : "lens." + code;
}

struct Ack {
  std::string code;
  std::string target;  // "" = any site
  std::string rationale;
  std::optional<std::string> fingerprint;
};

void collectAcks(const ast::Tags& tags, std::vector<Ack>& out) {
  for (const ast::Tag& tag : tags) {
    std::string key = lowerName(tag.key);
    if (key.rfind(kAckPrefix, 0) != 0 || tag.value.isNull()) continue;
    std::string rest = tag.key.substr(std::string(kAckPrefix).size());
    Ack a;
    size_t colon = rest.find(':');
    a.code = withPrefix(rest.substr(0, colon));
    if (colon != std::string::npos) a.target = lowerName(rest.substr(colon + 1));
    a.rationale = toText(tag.value);
    size_t fp = a.rationale.find("#fp=");
    if (fp != std::string::npos) {
      a.fingerprint = a.rationale.substr(fp + 4);
      a.rationale = a.rationale.substr(0, fp);
    }
    if (!a.rationale.empty()) out.push_back(std::move(a));
  }
}

std::vector<std::string> policyCodes(const TableSchema& t, const char* key, std::vector<LensDiagnostic>& errors) {
  std::vector<std::string> out;
  for (const ast::Tag& tag : t.tags) {
    if (lowerName(tag.key) != key || tag.value.isNull()) continue;
    std::string text = toText(tag.value);
    size_t start = 0;
    while (start <= text.size()) {
      size_t comma = text.find(',', start);
      std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (part.find_first_not_of(' ') != std::string::npos) {
        std::string code = withPrefix(part);
        if (std::find(kAdvisoryCodes.begin(), kAdvisoryCodes.end(), code) == kAdvisoryCodes.end()) {
          errors.push_back(LensDiagnostic{"lens.unknown-policy-code", t.name, std::nullopt, std::nullopt,
                                          "lens: " + std::string(key) + " on '" + t.name + "' names '" + part +
                                              "', which is not an advisory code",
                                          "", {}});
        } else {
          out.push_back(code);
        }
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

bool listed(const std::vector<std::string>& codes, const std::string& code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

const Ack* findAck(const std::vector<Ack>& acks, const LensDiagnostic& d) {
  for (const Ack& a : acks) {
    if (a.code != d.code) continue;
    if (a.target.empty()) return &a;
    for (const std::string& t : d.ackTargets) {
      if (lowerName(t) == a.target) return &a;
    }
  }
  return nullptr;
}

// The acknowledgements that may answer `d`: the table's, plus those on the constraint it names.
std::vector<Ack> acksFor(const TableSchema& t, const LensDiagnostic& d) {
  std::vector<Ack> acks;
  collectAcks(t.tags, acks);
  for (const IndexSchema& ix : t.indexes) collectAcks(ix.tags, acks);
  for (const CheckConstraint& ck : t.checks) collectAcks(ck.tags, acks);
  return acks;
}

}  // namespace

std::string advisoryFingerprint(const LensDiagnostic& d) {
  return textDigest(d.code + "|" + lowerName(d.table) + "|" + d.fingerprint);
}

LensGovernance governAdvisories(const TableSchema& logical, const std::vector<LensDiagnostic>& warnings) {
  LensGovernance out;
  std::vector<std::string> errorOn = policyCodes(logical, "quereus.lens.policy.error-on", out.errors);
  std::vector<std::string> requireAck = policyCodes(logical, "quereus.lens.policy.require-ack", out.errors);
  for (const LensDiagnostic& d : warnings) {
    std::vector<Ack> acks = acksFor(logical, d);
    const Ack* ack = findAck(acks, d);
    std::string current = advisoryFingerprint(d);
    LensAdvisory a{d.table, d.code, d.constraint, d.column, "active", std::nullopt, current, std::nullopt, d.message};
    if (ack && !ack->fingerprint) {
      a.status = "acknowledged-unconditional";
      a.rationale = ack->rationale;
    } else if (ack && *ack->fingerprint == current) {
      a.status = "acknowledged";
      a.rationale = ack->rationale;
      a.recordedFingerprint = ack->fingerprint;
    } else if (ack) {
      a.status = "re-surfaced";
      a.recordedFingerprint = ack->fingerprint;
    }
    bool acknowledged = a.status == "acknowledged" || a.status == "acknowledged-unconditional";
    if (listed(errorOn, d.code)) {
      LensDiagnostic e = d;
      e.message += " (escalated to an error by quereus.lens.policy.error-on)";
      out.errors.push_back(std::move(e));
    } else if (!acknowledged && listed(requireAck, d.code)) {
      LensDiagnostic e = d;
      e.message += " (quereus.lens.policy.require-ack: acknowledge it with a quereus.lens.ack." +
                   d.code.substr(5) + " tag)";
      out.errors.push_back(std::move(e));
    }
    out.advisories.push_back(std::move(a));
  }
  return out;
}

}  // namespace optic
