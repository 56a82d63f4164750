#include "experiments.hpp"

namespace gpuhash::bench {

const std::vector<experiment>& all_experiments() {
  static const std::vector<experiment> experiments{
      demo_experiment(),
      lf_sweep_experiment(),
      limits_experiment(),
  };
  return experiments;
}

}  // namespace gpuhash::bench
