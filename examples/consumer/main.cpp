// Counts word lengths in a table: insert, upsert, find, erase and a mixed
// batch, on the CPU and, when available, on the GPU; sums per key through
// a CPU table's ref from two threads (the device-side API); then indexes a
// few string keys with the signature index. Exits non-zero if any result is
// wrong, so it doubles as a test of the installed package.

#include <gpuhash/gpuhash.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

template <class Table>
int exercise(const char* where) {
  Table table(gpuhash::table_options{.capacity = 64});
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> values;
  for (std::uint32_t k = 1; k <= 1000; ++k) {
    keys.push_back(k);
    values.push_back(k * k);
  }
  int errors = 0;
  for (const auto s : table.insert(keys, values)) errors += s != gpuhash::status::inserted;
  const auto found = table.find(keys);
  for (std::size_t i = 0; i < keys.size(); ++i)
    errors += found.statuses[i] != gpuhash::status::found || found.values[i] != values[i];

  const std::vector<gpuhash::operation> ops{gpuhash::operation::erase, gpuhash::operation::upsert,
                                            gpuhash::operation::search};
  const std::vector<std::uint32_t> mixed_keys{1, 2, 3};
  std::vector<std::uint32_t> in_out{0, 77, 0};
  const auto statuses = table.apply(ops, mixed_keys, in_out);
  errors += statuses[0] != gpuhash::status::erased || statuses[1] != gpuhash::status::updated ||
            statuses[2] != gpuhash::status::found || in_out[2] != 9;
  errors += table.size() != 999;
  std::printf("%s: %zu keys in %zu slots, %d errors\n", where, table.size(), table.capacity(),
              errors);
  return errors;
}

/// String keys in the caller's own storage; the index maps their signatures
/// to their positions, and every match is confirmed against the key.
template <class Index>
int index_keys(const char* where) {
  const std::vector<std::string> items{"apple", "banana", "cherry", "damson"};
  Index index;
  std::vector<std::uint32_t> signatures, locations;
  for (std::uint32_t i = 0; i < items.size(); ++i) {
    signatures.push_back(index.signature(items[i]));
    locations.push_back(i);
  }
  int errors = 0;
  for (const auto s : index.insert(signatures, locations)) errors += s != gpuhash::status::inserted;
  const auto hits = index.find(signatures);
  for (std::size_t i = 0; i < items.size(); ++i) {
    int confirmed = 0;
    for (const std::uint32_t location : hits.matches_of(i))
      confirmed += items[location] == items[i];
    errors += confirmed != 1;
  }
  errors += index.erase(std::vector{signatures[1]}, std::vector{locations[1]})[0] !=
            gpuhash::status::erased;
  errors += index.size() != items.size() - 1;
  std::printf("%s: signature index holds %zu items, %d errors\n", where, index.size(), errors);
  return errors;
}

/// Two threads add 1..1000 to keys 0..9 through a ref: each key ends with
/// the sum of its values, and size() counts the ten keys.
int sum_through_a_ref() {
  gpuhash::bucketed_cuckoo_map<std::uint32_t, std::uint32_t> sums(
      gpuhash::table_options{.capacity = 64});
  const auto ref = sums.ref();
  const auto add = [ref](std::uint32_t first) {
    for (std::uint32_t v = first; v <= 1000; v += 2)
      ref.insert_or_apply(v % 10, v, gpuhash::plus{});
  };
  std::thread odd(add, 1);
  std::thread even(add, 2);
  odd.join();
  even.join();
  int errors = sums.size() != 10;
  const auto [keys, values] = sums.retrieve_all();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::uint32_t expected = 0;
    for (std::uint32_t v = 1; v <= 1000; ++v) expected += v % 10 == keys[i] ? v : 0;
    errors += values[i] != expected;
  }
  std::printf("cpu ref: %s\n", errors == 0 ? "ok" : "WRONG");
  return errors;
}

int main() {
  int errors = exercise<gpuhash::linear_probing_map<std::uint32_t, std::uint32_t>>("cpu");
  errors += sum_through_a_ref();
  errors += index_keys<gpuhash::signature_index<>>("cpu");
#if defined(GPUHASH_HAS_CUDA)
  if (gpuhash::cuda_backend::available())
    errors +=
        exercise<gpuhash::linear_probing_map<std::uint32_t, std::uint32_t, gpuhash::cuda_backend>>(
            gpuhash::cuda_backend::device_name().c_str()) +
        index_keys<gpuhash::signature_index<gpuhash::cuda_backend>>(
            gpuhash::cuda_backend::device_name().c_str());
  else
    std::printf("cuda: built, but no GPU here\n");
#endif
  return errors == 0 ? 0 : 1;
}
