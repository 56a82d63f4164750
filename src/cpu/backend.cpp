#include "gpuhash/cpu/backend.hpp"

#include <fstream>
#include <string>

namespace gpuhash {

std::string cpu_backend::device_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string model = "unknown CPU";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(colon + 2);
      break;
    }
  }
  return model + " (" + std::to_string(cpu::thread_pool::shared().thread_count()) + " threads)";
}

}  // namespace gpuhash
