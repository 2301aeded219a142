// Values from logs by type (common/value_type.h): what fits is placed into
// commands and admin fields, what does not is never placed.
#include "common/value_type.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>

using namespace faultline;

namespace {

bool fits(ValueType t, const std::string &v) { return value_fits(t, v.data(), v.size()); }

}  // namespace

TEST_CASE("value types: the names templates use") {
  CHECK(value_type_named("path", 4) == ValueType::kPath);
  CHECK(value_type_named("hostname", 8) == ValueType::kHostname);
  CHECK(value_type_named("pathx", 5) == ValueType::kUnknown);
  CHECK(std::strcmp(value_type_name(ValueType::kIdentifier), "identifier") == 0);
}

TEST_CASE("value types: real values fit their type") {
  CHECK(fits(ValueType::kNumber, "29500"));
  CHECK(fits(ValueType::kSize, "40GiB"));
  CHECK(fits(ValueType::kSize, "1.5G"));
  CHECK(fits(ValueType::kHostname, "gpu-a100-07.cluster.local"));
  CHECK(fits(ValueType::kHostname, "10.0.0.4"));
  CHECK(fits(ValueType::kHostname, "fe80::966d:ae03:a2:8cf0%ib1"));
  CHECK(fits(ValueType::kIdentifier, "0000:3b:00.0"));
  CHECK(fits(ValueType::kIdentifier, "meta-llama/Llama-2-7b-hf"));
  CHECK(fits(ValueType::kIdentifier, "_ZN3c104cuda9SetDeviceEi"));
  CHECK(fits(ValueType::kIdentifier, "libstdc++.so.6"));
  CHECK(fits(ValueType::kPath, "/ckpt/run-1/checkpoint_0.pt"));
  CHECK(fits(ValueType::kPath, "/data/训练/模型.bin"));  // a path in any script
  CHECK(fits(ValueType::kPath, "relative/dir,v2=3@x+y%z:w"));
}

TEST_CASE("value types: shell and terminal syntax fits no type") {
  const char *hostile[] = {"a;b", "$(id)", "`id`", "a'b", "a\"b",  "a b", "a\tb", "a\nb",     "a\\b",  "a|b", "a&b",   "a>b",
                           "a<b", "a*",    "a?",   "[a]", "{a,b}", "a!b", "a#b",  "a\x1b[2J", "a\x7f", "-rf", "~root", ""};
  for (const char *h : hostile)
    for (ValueType t : {ValueType::kNumber, ValueType::kSize, ValueType::kHostname, ValueType::kIdentifier, ValueType::kPath})
      CHECK_MESSAGE(!fits(t, h), value_type_name(t), " took ", h);
}

TEST_CASE("value types: free text and unknown types never fit") {
  CHECK(!fits(ValueType::kText, "hello"));
  CHECK(!fits(ValueType::kUnknown, "hello"));
}

TEST_CASE("value types: numbers are digits only") {
  CHECK(!fits(ValueType::kNumber, "-1"));  // an option, not an argument
  CHECK(!fits(ValueType::kNumber, "12a"));
  CHECK(!fits(ValueType::kNumber, std::string(20, '9')));
  CHECK(!fits(ValueType::kSize, "1.5 GiB"));
  CHECK(!fits(ValueType::kSize, "GiB"));
}

TEST_CASE("value types: paths hold no invisible or invalid characters") {
  CHECK(!fits(ValueType::kPath, "/a/\xe2\x80\xae/b"));  // U+202E right-to-left override
  CHECK(!fits(ValueType::kPath, "/a/\xe2\x80\x8b"));    // U+200B zero width space
  CHECK(!fits(ValueType::kPath, "/a/\xc2\x9b"));        // U+009B, the C1 CSI
  CHECK(!fits(ValueType::kPath, "/a/\xef\xbb\xbf"));    // U+FEFF
  CHECK(!fits(ValueType::kPath, "/a/\xff"));            // invalid UTF-8
  CHECK(!fits(ValueType::kPath, "/a/\xc0\xaf"));        // overlong '/'
  CHECK(!fits(ValueType::kPath, "/a/\xed\xa0\x80"));    // a surrogate
  CHECK(!fits(ValueType::kPath, "/a/\xe2\x80\xa6"));    // "…": the mark of a value cut short
  CHECK(!fits(ValueType::kPath, "/" + std::string(4096, 'a')));
  CHECK(fits(ValueType::kPath, "/" + std::string(4095, 'a')));
}
