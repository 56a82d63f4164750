// gpuhash-bench: named experiments that reproduce the seeds' figures and
// compare the designs. `gpuhash-bench --list` shows them.

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "args.hpp"
#include "experiment.hpp"
#include "gpuhash/cpu/backend.hpp"
#include "tables.hpp"

#ifndef GPUHASH_GIT_COMMIT
#define GPUHASH_GIT_COMMIT "unknown"
#endif

namespace {

void print_usage() {
  std::printf(
      "usage: gpuhash-bench <experiment> [--name=value ...]\n"
      "       gpuhash-bench --list\n"
      "       gpuhash-bench --designs   (registered designs: NAME KEY_BITS/VALUE_BITS)\n\n"
      "Common options:\n"
      "  --backend=cpu,cuda   backends to run (default: every one available)\n"
      "  --design=NAME,...    designs to run (default: all)\n"
      "  --key-bits=32,64     key and value width (default: 32)\n"
      "  --n=2^26             keys per batch, or a list, or 2^a..2^b (defaults per backend)\n"
      "  --load=0.5,0.9       load factors\n"
      "  --dist=uniform       key distribution: uniform, zipf, dense\n"
      "  --reps=5 --warmup=1  timed repetitions (median reported) and warm-ups\n"
      "  --seed=42            seed of the generated keys\n"
      "  --first-pass-walk=8  Cuckoo Node Hashing: eviction steps in a batch's first pass\n"
      "                       (0: one pass; sweeps such as lf_sweep)\n"
      "  --max-loop=64        Cuckoo Node Hashing: eviction steps in a node (1 to 64)\n"
      "  --out=FILE           append JSON lines (one per measurement) to FILE\n"
      "  --commit=SHA         commit recorded in JSON (default: $GPUHASH_COMMIT or build's)\n"
      "CPU threads: GPUHASH_CPU_THREADS (default: all hardware threads).\n");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuhash::bench;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--list") {
    std::size_t width = 0;
    for (const auto& e : all_experiments()) width = std::max(width, e.name.size());
    for (const auto& e : all_experiments())
      std::printf("%-*s %s\n", static_cast<int>(width), std::string(e.name).c_str(),
                  std::string(e.description).c_str());
    return 0;
  }
  if (std::string(argv[1]) == "--designs") {
    // The registry (support/designs.hpp), which --design selects from; the
    // same on every backend. scripts/peers-compare runs each one by name.
    for_each_design<gpuhash::cpu_backend>([]<class Table>() {
      std::printf("%s %d/%d\n", std::string(Table::design_name).c_str(),
                  static_cast<int>(8 * sizeof(typename Table::key_type)),
                  static_cast<int>(8 * sizeof(typename Table::mapped_type)));
    });
    return 0;
  }
  try {
    const std::string name = argv[1];
    const args arguments(argc, argv, 2);
    const experiment* chosen = nullptr;
    for (const auto& e : all_experiments())
      if (e.name == name) chosen = &e;
    if (chosen == nullptr) {
      std::fprintf(stderr, "gpuhash-bench: no experiment '%s' (see --list)\n", name.c_str());
      return 2;
    }
    std::unique_ptr<std::ofstream> json;
    if (arguments.has("out")) {
      json = std::make_unique<std::ofstream>(arguments.text("out", ""), std::ios::app);
      if (!*json) throw std::runtime_error("cannot open " + arguments.text("out", ""));
    }
    const char* env_commit = std::getenv("GPUHASH_COMMIT");
    context ctx(arguments, json.get(),
                arguments.text("commit", env_commit != nullptr ? env_commit : GPUHASH_GIT_COMMIT));
    chosen->run(ctx);
    for (const auto& unused : arguments.unused())
      std::fprintf(stderr, "gpuhash-bench: warning: --%s was not used by %s\n", unused.c_str(),
                   name.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuhash-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
