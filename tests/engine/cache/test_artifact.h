// TestValue: a small artifact for engine tests (cache, executor, engine benchmark): a text, a
// number and an optional block of doubles (to make entries large on purpose).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"

namespace seqflow::testkit {

// Loads of TestValues carrying data (the executor's deferred-loading tests count them).
inline std::atomic<int>& DataLoads() {
  static std::atomic<int> loads{0};
  return loads;
}

class TestValue final : public Artifact {
 public:
  static constexpr std::string_view kType = "TestValue";
  static constexpr uint32_t kVersion = 1;

  TestValue() = default;
  TestValue(std::string t, double n, std::vector<double> d = {}) : text(std::move(t)), number(n), data(std::move(d)) {}

  std::string text;
  double number = 0;
  std::vector<double> data;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override {
    w.Str(text);
    w.F64(number);
    w.F64s(data.data(), data.size());
  }
  static std::shared_ptr<const TestValue> Load(ByteReader& r) {
    auto v = std::make_shared<TestValue>();
    v->text = r.Str();
    v->number = r.F64();
    v->data = r.F64s();
    if (!v->data.empty()) ++DataLoads();
    return v;
  }
};

// The payload bytes of any artifact: equal bytes mean bit-identical artifacts.
inline std::string BytesOf(const Artifact& a) {
  ByteWriter w;
  a.Save(w);
  return w.Take();
}

}  // namespace seqflow::testkit
