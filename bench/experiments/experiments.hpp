#pragma once
// One function per experiment file; experiments.cpp lists them for --list.

#include "../experiment.hpp"

namespace gpuhash::bench {

experiment demo_experiment();
experiment lf_sweep_experiment();
experiment limits_experiment();

}  // namespace gpuhash::bench
