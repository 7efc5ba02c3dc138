#ifndef JAXLIB_PY_CLIENT_H_
#define JAXLIB_PY_CLIENT_H_

#include <nanobind/nanobind.h>

#include <deque>
#include <string>
#include <vector>

#include "xla/pjrt/c/pjrt_c_api.h"

namespace jax {

// Converts a Python dict of options (bool, int, float, str or list of int
// values) into named values; `strings` and `lists` keep the strings and lists
// alive for the duration of the call.
std::vector<PJRT_NamedValue> ToNamedValues(const nanobind::dict& options,
                                           std::deque<std::string>& strings,
                                           std::deque<std::vector<int64_t>>& lists);

void RegisterClient(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_CLIENT_H_
