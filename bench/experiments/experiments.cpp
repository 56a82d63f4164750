#include "experiments.hpp"

#include <utility>

namespace gpuhash::bench {

const std::vector<experiment>& all_experiments() {
  static const std::vector<experiment> experiments = [] {
    std::vector<experiment> list{demo_experiment(), lf_sweep_experiment(), limits_experiment()};
    for (auto& e : bucketed_cuckoo_experiments()) list.push_back(std::move(e));
    list.push_back(signature_index_experiment());
    list.push_back(bucketed_cuckoo_growth_experiment());
    for (auto& e : dachash_experiments()) list.push_back(std::move(e));
    for (auto& e : hashgraph_experiments()) list.push_back(std::move(e));
    list.push_back(hashgraph_growth_experiment());
    for (auto& e : cnh_experiments()) list.push_back(std::move(e));
    for (auto& e : device_api_experiments()) list.push_back(std::move(e));
    for (auto& e : key_types_experiments()) list.push_back(std::move(e));
    list.push_back(strings_experiment());
    list.push_back(sharded_scaling_experiment());
    return list;
  }();
  return experiments;
}

}  // namespace gpuhash::bench
