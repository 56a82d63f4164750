#pragma once
// One function per experiment file (bucketed_cuckoo.cpp: the family of
// bucketed_cuckoo.* experiments); experiments.cpp lists them for --list.

#include <vector>

#include "../experiment.hpp"

namespace gpuhash::bench {

experiment demo_experiment();
experiment lf_sweep_experiment();
experiment limits_experiment();
std::vector<experiment> bucketed_cuckoo_experiments();
experiment signature_index_experiment();
experiment bucketed_cuckoo_growth_experiment();
std::vector<experiment> dachash_experiments();
std::vector<experiment> hashgraph_experiments();
experiment hashgraph_growth_experiment();
std::vector<experiment> cnh_experiments();
std::vector<experiment> device_api_experiments();
std::vector<experiment> key_types_experiments();
experiment strings_experiment();
experiment sharded_scaling_experiment();

}  // namespace gpuhash::bench
