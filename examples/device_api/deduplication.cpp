// Deduplication: each thread of our own kernel inserts one key of an input
// with repeats; the one insert of each distinct key that reports `inserted`
// appends it to the output, so the output holds every distinct key once
// (in no particular order). The table is a DACHash map, whose inserts
// answer `full` when its node pool runs dry: those keys are inserted by a
// batch afterwards (which grows the pool), and the ones it reports
// `inserted` are appended too. Checked against a std::unordered_set.

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_set>
#include <vector>

#include "common.hpp"
#include "gpuhash/dachash_map.hpp"

namespace {

using key_type = std::uint32_t;

template <class Ref>
struct keep_first {
  Ref seen;
  const key_type* keys;
  key_type* distinct;
  std::uint64_t* count;
  gpuhash::status* statuses;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    const gpuhash::status s = seen.insert(keys[i], 0);
    statuses[i] = s;
    if (s == gpuhash::status::inserted) distinct[gpuhash::examples::take_position(count)] = keys[i];
  }
};

struct deduplication {
  template <class Backend>
  int operator()() const {
    using gpuhash::examples::to_backend;
    using gpuhash::examples::to_host;
    using table_type = gpuhash::dachash_map<key_type, std::uint32_t, Backend>;
    const std::size_t n = 1 << 18;

    std::mt19937_64 random(37);
    std::vector<key_type> keys(n);
    for (auto& k : keys) k = 1 + static_cast<key_type>(random() % (n / 3));

    // Sized for a third of the distinct keys there turn out to be.
    table_type seen(gpuhash::table_options{n / 9});
    const auto d_keys = to_backend<Backend>(keys);
    auto d_distinct = Backend::template allocate<key_type>(n);
    auto d_count = to_backend<Backend>(std::vector<std::uint64_t>{0});
    auto d_statuses = Backend::template allocate<gpuhash::status>(n);
    gpuhash::examples::for_each_index<Backend>(
        n, keep_first<typename table_type::ref_type>{seen.ref(), d_keys.data(), d_distinct.data(),
                                                     d_count.data(), d_statuses.data()});

    const std::uint64_t count = to_host<Backend>(d_count.data(), 1)[0];
    std::vector<key_type> distinct = to_host<Backend>(d_distinct.data(), count);
    const auto statuses = to_host<Backend>(d_statuses.data(), n);
    std::vector<key_type> retry;
    for (std::size_t i = 0; i < n; ++i)
      if (statuses[i] == gpuhash::status::full) retry.push_back(keys[i]);
    const auto retried = seen.insert(retry, std::vector<std::uint32_t>(retry.size(), 0));
    for (std::size_t i = 0; i < retry.size(); ++i)
      if (retried[i] == gpuhash::status::inserted) distinct.push_back(retry[i]);

    const std::unordered_set<key_type> expected(keys.begin(), keys.end());
    std::sort(distinct.begin(), distinct.end());
    std::uint64_t wrong = distinct.size() == expected.size() ? 0 : 1;
    wrong += static_cast<std::uint64_t>(std::adjacent_find(distinct.begin(), distinct.end()) !=
                                        distinct.end());
    for (const key_type k : distinct) wrong += expected.count(k) == 0;
    wrong += seen.size() != expected.size();
    std::printf("deduplication: %zu of %zu keys retried after `full`\n", retry.size(), n);
    return gpuhash::examples::report("deduplication", Backend::name.data(), wrong);
  }
};

}  // namespace

int main() {
  return gpuhash::examples::run_example(deduplication{});
}
