// Hash join: a table is built on relation R (its key -> its row number) by
// a batch, then a kernel of our own probes it with relation S, one S row per
// thread, and appends every matching pair (R row, S row) to the output.
// R's keys are distinct, so an S row matches at most one R row. Checked
// against a join computed on the host.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common.hpp"
#include "gpuhash/bucketed_cuckoo_map.hpp"

namespace {

using key_type = std::uint32_t;
using row_type = std::uint32_t;

/// The probe of S row s: its key looked up in R's table; a match appends
/// (R row, s) to the output.
template <class Ref>
struct probe_row {
  Ref r_table;
  const key_type* s_keys;
  row_type* matched_r;
  row_type* matched_s;
  std::uint64_t* matches;

  GPUHASH_HD void operator()(std::uint64_t s) const {
    row_type r;
    if (r_table.find(s_keys[s], &r) != gpuhash::status::found) return;
    const std::uint64_t at = gpuhash::examples::take_position(matches);
    matched_r[at] = r;
    matched_s[at] = static_cast<row_type>(s);
  }
};

struct hash_join {
  template <class Backend>
  int operator()() const {
    using gpuhash::examples::to_backend;
    using gpuhash::examples::to_host;
    using table_type = gpuhash::bucketed_cuckoo_map<key_type, row_type, Backend>;
    const std::size_t r_rows = 1 << 16;
    const std::size_t s_rows = 1 << 18;

    // R: distinct keys. S: keys drawn from a range twice R's, so about half
    // of S's rows match (more than one S row may match one R row).
    std::mt19937_64 random(29);
    std::vector<key_type> r_keys(2 * r_rows);
    std::iota(r_keys.begin(), r_keys.end(), key_type{1});
    std::shuffle(r_keys.begin(), r_keys.end(), random);
    const std::vector<key_type> s_universe = r_keys;
    r_keys.resize(r_rows);
    std::vector<row_type> r_row_numbers(r_rows);
    std::iota(r_row_numbers.begin(), r_row_numbers.end(), row_type{0});
    std::vector<key_type> s_keys(s_rows);
    for (auto& k : s_keys) k = s_universe[random() % s_universe.size()];

    // Build (a batch), then probe (our kernel, through the table's ref).
    table_type r_table(gpuhash::table_options{r_rows});
    r_table.insert(r_keys, r_row_numbers);
    const auto d_s_keys = to_backend<Backend>(s_keys);
    auto matched_r = Backend::template allocate<row_type>(s_rows);
    auto matched_s = Backend::template allocate<row_type>(s_rows);
    auto matches = to_backend<Backend>(std::vector<std::uint64_t>{0});
    gpuhash::examples::for_each_index<Backend>(
        s_rows,
        probe_row<typename table_type::ref_type>{r_table.ref(), d_s_keys.data(), matched_r.data(),
                                                 matched_s.data(), matches.data()});

    // The same join on the host, as sorted (R row, S row) pairs.
    const std::uint64_t count = to_host<Backend>(matches.data(), 1)[0];
    const auto r = to_host<Backend>(matched_r.data(), count);
    const auto s = to_host<Backend>(matched_s.data(), count);
    std::vector<std::pair<row_type, row_type>> joined(count);
    for (std::uint64_t i = 0; i < count; ++i) joined[i] = {r[i], s[i]};
    std::unordered_map<key_type, row_type> r_index;
    for (std::size_t i = 0; i < r_rows; ++i) r_index.emplace(r_keys[i], r_row_numbers[i]);
    std::vector<std::pair<row_type, row_type>> expected;
    for (std::size_t i = 0; i < s_rows; ++i)
      if (const auto it = r_index.find(s_keys[i]); it != r_index.end())
        expected.emplace_back(it->second, static_cast<row_type>(i));
    std::sort(joined.begin(), joined.end());
    std::sort(expected.begin(), expected.end());
    std::uint64_t wrong = joined == expected ? 0
                                             : 1 + (joined.size() > expected.size()
                                                        ? joined.size() - expected.size()
                                                        : expected.size() - joined.size());
    return gpuhash::examples::report("hash_join", Backend::name.data(), wrong);
  }
};

}  // namespace

int main() {
  return gpuhash::examples::run_example(hash_join{});
}
