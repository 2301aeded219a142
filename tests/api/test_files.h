// Reading a test's input file whole (logs, packs): shared by the API tests.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

inline std::string slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::vector<uint8_t> slurp_bytes(const std::string &path) {
  const std::string b = slurp(path);
  return std::vector<uint8_t>(b.begin(), b.end());
}
