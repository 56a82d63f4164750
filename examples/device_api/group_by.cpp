// Group-by sum: each row adds its value to its group's sum with
// insert_or_apply(group, value, gpuhash::plus{}), one row per thread of our
// own kernel. The table was created for fewer groups than the rows have (an
// estimate that was too low), so some rows come back `full`: a table does
// not grow inside a kernel. The retry: a batch inserts those rows (one per
// group is inserted, the others find their group there: `exists`), and a
// second kernel applies the `exists` rows. Checked against sums computed on
// the host.

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "gpuhash/apply_ops.hpp"
#include "gpuhash/linear_probing_map.hpp"

namespace {

using key_type = std::uint32_t;
using value_type = std::uint32_t;

/// Row i's value added to its group's sum; `full` is kept for the retry.
template <class Ref>
struct add_row {
  Ref sums;
  const key_type* groups;
  const value_type* values;
  gpuhash::status* statuses;

  GPUHASH_HD void operator()(std::uint64_t i) const {
    statuses[i] = sums.insert_or_apply(groups[i], values[i], gpuhash::plus{});
  }
};

struct group_by {
  template <class Backend>
  int operator()() const {
    using gpuhash::examples::to_backend;
    using gpuhash::examples::to_host;
    using table_type = gpuhash::linear_probing_map<key_type, value_type, Backend>;
    using ref_type = typename table_type::ref_type;
    const std::size_t rows = 1 << 16;
    const std::size_t group_count = 1 << 10;

    std::mt19937_64 random(31);
    std::vector<key_type> groups(rows);
    std::vector<value_type> values(rows);
    for (std::size_t i = 0; i < rows; ++i) {
      groups[i] = 1 + static_cast<key_type>(random() % group_count);
      values[i] = 1 + static_cast<value_type>(random() % 16);
    }

    table_type sums(gpuhash::table_options{group_count / 2});
    auto d_groups = to_backend<Backend>(groups);
    auto d_values = to_backend<Backend>(values);
    auto d_statuses = Backend::template allocate<gpuhash::status>(rows);
    gpuhash::examples::for_each_index<Backend>(
        rows, add_row<ref_type>{sums.ref(), d_groups.data(), d_values.data(), d_statuses.data()});

    // The rows that found no room: insert them (the table grows), then
    // apply those whose group another of them inserted.
    const auto statuses = to_host<Backend>(d_statuses.data(), rows);
    std::vector<key_type> full_groups;
    std::vector<value_type> full_values;
    for (std::size_t i = 0; i < rows; ++i) {
      if (statuses[i] != gpuhash::status::full) continue;
      full_groups.push_back(groups[i]);
      full_values.push_back(values[i]);
    }
    const auto inserted = sums.insert(full_groups, full_values);
    std::vector<key_type> again_groups;
    std::vector<value_type> again_values;
    for (std::size_t i = 0; i < full_groups.size(); ++i) {
      if (inserted[i] != gpuhash::status::exists) continue;
      again_groups.push_back(full_groups[i]);
      again_values.push_back(full_values[i]);
    }
    d_groups = to_backend<Backend>(again_groups);
    d_values = to_backend<Backend>(again_values);
    gpuhash::examples::for_each_index<Backend>(
        again_groups.size(),
        add_row<ref_type>{sums.ref(), d_groups.data(), d_values.data(), d_statuses.data()});

    std::unordered_map<key_type, value_type> expected;
    for (std::size_t i = 0; i < rows; ++i) expected[groups[i]] += values[i];
    const auto [keys, found] = sums.retrieve_all();
    std::uint64_t wrong = keys.size() == expected.size() ? 0 : 1;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto it = expected.find(keys[i]);
      wrong += it == expected.end() || it->second != found[i];
    }
    std::printf("group_by: %zu of %zu rows retried after `full`\n", full_groups.size(), rows);
    return gpuhash::examples::report("group_by", Backend::name.data(), wrong);
  }
};

}  // namespace

int main() {
  return gpuhash::examples::run_example(group_by{});
}
