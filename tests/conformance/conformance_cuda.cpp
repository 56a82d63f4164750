// The conformance suite on the CUDA backend (CTest label `gpu`; skipped with a
// message where no GPU is present), and the check that the CPU and CUDA
// backends of each design agree on the same inputs.

#include <gtest/gtest.h>

#include <vector>

#include "conformance.hpp"
#include "designs.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/dachash_map.hpp"

namespace gpuhash::testing {

INSTANTIATE_TYPED_TEST_SUITE_P(conformance, conformance, conformance_tables<cuda_backend>);

// DACHash runs its dynamic mapping by default, which picks one-to-one for
// short chains: the suite again with many-to-one forced.
template <class Table>
struct dachash_many_to_one : Table {
  explicit dachash_many_to_one(table_options options = {}) : Table(options) {
    auto settings = this->engine().settings();
    settings.mapping = dachash_mapping::many_to_one;
    this->engine().configure(settings);
  }
};
using dachash_many_to_one_tables =
    ::testing::Types<dachash_many_to_one<dachash_map<std::uint32_t, std::uint32_t, cuda_backend>>,
                     dachash_many_to_one<dachash_map<std::uint64_t, std::uint64_t, cuda_backend>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(dachash_many_to_one, conformance, dachash_many_to_one_tables);

template <class Instance>
class backends_agree : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_backend::available())
      GTEST_SKIP()
          << "no cuda device: these tests need an NVIDIA GPU (scripts/gpu-check runs them)";
  }
};

TYPED_TEST_SUITE(backends_agree, design_instances);

// Same batches (distinct keys per batch, so the outcome is deterministic) on
// both backends: same statuses, same search results, same final contents.
TYPED_TEST(backends_agree, conformance_same_statuses_and_contents) {
  using cpu_table = typename TypeParam::template on<cpu_backend>;
  using cuda_table = typename TypeParam::template on<cuda_backend>;
  using K = typename cpu_table::key_type;
  using V = typename cpu_table::mapped_type;
  seeded_random random;
  const table_options options{512, 0.0f, random.next()};
  cpu_table on_cpu(options);
  cuda_table on_gpu(options);
  const auto universe = distinct_keys<cpu_table>(random, scaled(30000));
  const std::size_t batch = scaled(5000);

  for (int round = 0; round < 30; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::vector<K> keys = sample_distinct(universe, batch, random);
    const auto values = random_values<V>(random, batch);
    std::vector<operation> ops(batch);
    for (auto& op : ops) op = static_cast<operation>(random.below(5));
    switch (random.below(5)) {
      case 0: EXPECT_EQ(on_cpu.insert(keys, values), on_gpu.insert(keys, values)); break;
      case 1:
        EXPECT_EQ(on_cpu.insert_or_assign(keys, values), on_gpu.insert_or_assign(keys, values));
        break;
      case 2: EXPECT_EQ(on_cpu.erase(keys), on_gpu.erase(keys)); break;
      case 3: {
        const auto a = on_cpu.find(keys);
        const auto b = on_gpu.find(keys);
        EXPECT_EQ(a.statuses, b.statuses);
        for (std::size_t i = 0; i < batch; ++i) {
          if (a.statuses[i] == status::found) {
            ASSERT_EQ(a.values[i], b.values[i]);
          }
        }
        break;
      }
      default: {
        std::vector<V> a = values;
        std::vector<V> b = values;
        EXPECT_EQ(on_cpu.apply(ops, keys, a), on_gpu.apply(ops, keys, b));
        EXPECT_EQ(a, b);
        break;
      }
    }
    ASSERT_EQ(on_cpu.size(), on_gpu.size());
  }
  EXPECT_EQ(contents(on_cpu), contents(on_gpu));
}

}  // namespace gpuhash::testing
