// First-fit placement of random keys into bucketed cuckoo layouts, without
// eviction walks: the numbers docs/results/bucketed_cuckoo.md quotes for
// "Four choices and a backyard" (keys left for walks, buckets a hit and a
// miss read). Not part of the build; on any machine:
//   c++ -O2 -std=c++20 -o /tmp/first_fit_placement bench/sim/first_fit_placement.cpp
//   /tmp/first_fit_placement
// Each key takes the first bucket with a free slot among its choices, in
// order (the probe order of docs/designs/bucketed_cuckoo.md); a key whose
// buckets are all full is counted as left for the walks and not placed.
// Choice i draws its bucket uniformly from [first[i], last[i]) as fractions
// of the table.

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

struct layout {
  const char* name;
  int choices;
  double first[4];
  double last[4];
};

constexpr std::uint64_t buckets = std::uint64_t{1} << 21;
constexpr int slots_per_bucket = 4;
constexpr double loads[] = {0.5, 0.8, 0.9, 0.95};
constexpr int probes = 400000;  // random misses per load

void simulate(const layout& l) {
  std::vector<std::uint8_t> fill(buckets, 0);
  std::mt19937_64 random(11);
  const auto bucket_of = [&](int choice) {
    const auto first = static_cast<std::uint64_t>(l.first[choice] * buckets);
    const auto last = static_cast<std::uint64_t>(l.last[choice] * buckets);
    return first + random() % (last - first);
  };
  std::uint64_t inserted = 0, left = 0, reads_of_hits = 0, placed = 0;
  std::printf("%-10s", l.name);
  for (const double load : loads) {
    const auto target = static_cast<std::uint64_t>(load * buckets * slots_per_bucket);
    for (; inserted < target; ++inserted) {
      std::uint64_t chosen[4];
      int reads = 0;
      bool done = false;
      for (int c = 0; c < l.choices && !done; ++c) {
        chosen[c] = bucket_of(c);
        bool repeated = false;
        for (int earlier = 0; earlier < c; ++earlier) repeated |= chosen[earlier] == chosen[c];
        if (repeated) continue;
        ++reads;
        if (fill[chosen[c]] < slots_per_bucket) {
          ++fill[chosen[c]];
          reads_of_hits += reads;
          ++placed;
          done = true;
        }
      }
      if (!done) ++left;
    }
    std::uint64_t reads_of_misses = 0;
    for (int probe = 0; probe < probes; ++probe)
      for (int c = 0; c < l.choices; ++c) {
        ++reads_of_misses;
        if (fill[bucket_of(c)] < slots_per_bucket) break;
      }
    std::printf(" | %.2f: left %.4f, hit %.2f, miss %.2f", load,
                static_cast<double>(left) / inserted,
                static_cast<double>(reads_of_hits) / placed,
                static_cast<double>(reads_of_misses) / probes);
  }
  std::printf("\n");
}

}  // namespace

int main() {
  std::printf("keys left for walks while filling to each load (of those inserted), buckets "
              "read by a hit and by a random miss at that load\n");
  const layout layouts[] = {
      {"c2", 2, {0, 0}, {1, 1}},
      {"c3", 3, {0, 0, 0}, {1, 1, 1}},
      {"c4", 4, {0, 0, 0, 0}, {1, 1, 1, 1}},
      {"c4-y2", 4, {0, 0, 14 / 16.0, 14 / 16.0}, {14 / 16.0, 14 / 16.0, 1, 1}},
      {"c4-y3", 4, {0, 0, 13 / 16.0, 13 / 16.0}, {13 / 16.0, 13 / 16.0, 1, 1}},
      {"c4-y4", 4, {0, 0, 12 / 16.0, 12 / 16.0}, {12 / 16.0, 12 / 16.0, 1, 1}},
  };
  for (const layout& l : layouts) simulate(l);
}
