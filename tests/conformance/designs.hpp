#pragma once
// The designs under test, as GoogleTest type lists: the registry itself is
// support/designs.hpp, shared with gpuhash-bench.

#include <gtest/gtest.h>

#include "support/designs.hpp"

namespace gpuhash::testing {

template <class List, class Backend>
struct tables_on;
template <class... Instances, class Backend>
struct tables_on<support::type_list<Instances...>, Backend> {
  using type = ::testing::Types<typename Instances::template on<Backend>...>;
};

template <class List>
struct instances_of;
template <class... Instances>
struct instances_of<support::type_list<Instances...>> {
  using type = ::testing::Types<Instances...>;
};

/// Every registered design at every width, on one backend.
template <class Backend>
using conformance_tables = typename tables_on<support::registered_designs, Backend>::type;

/// Every registered design at every width, not bound to a backend.
using design_instances = instances_of<support::registered_designs>::type;

}  // namespace gpuhash::testing
