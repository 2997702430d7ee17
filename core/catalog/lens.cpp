// Lenses (lens.h).
#include "core/catalog/lens.h"

#include "core/common/names.h"

namespace optic {

const LensSlot* LensDeployment::find(const std::string& table) const {
  auto it = slots.find(lowerName(table));
  return it == slots.end() ? nullptr : it->second.get();
}

}  // namespace optic
