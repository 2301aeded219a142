// Reading a test's input file whole (logs, packs): shared by the API tests.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

inline std::string slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
