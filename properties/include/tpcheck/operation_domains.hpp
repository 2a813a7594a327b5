// The domain of each model operation, made from the roles of its parameters
// (tpcheck/operations.hpp): a size, a rank of a size, a head count, ... The
// differential compares the narrow models with cpp_int over these; conform's
// grid can enumerate them too (dom::for_each_case).
#pragma once

#include <vector>

#include "tpcheck/domain.hpp"

namespace tpcheck::dom {

struct OperationDomain {
  Domain domain;              // sizes, flags and head counts first, then what depends on them
  std::vector<int> position;  // parameter i of the operation is values[position[i]]
};

// One per operation of operation_infos(), in its order.
const std::vector<OperationDomain>& operation_domains();

}  // namespace tpcheck::dom
