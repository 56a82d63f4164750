#pragma once
// Functors for a ref's insert_or_apply(key, value, op), which calls
// op(stored, value) on the stored value of a present key, atomically. Any
// functor with a host+device `void operator()(Value& stored, Value value)`
// works: the table runs it in a compare-and-swap loop. gpuhash::plus is
// recognized and done with one atomic add instead, which the thread does not
// wait for (no loop, so no retries when many threads add to one key: the
// group-by case).

#include "gpuhash/host_device.hpp"

namespace gpuhash {

/// stored += value, by one atomic add (wrapping, as unsigned arithmetic).
struct plus {
  template <class Value>
  GPUHASH_HD void operator()(Value& stored, Value value) const {
    stored += value;
  }
};

}  // namespace gpuhash
