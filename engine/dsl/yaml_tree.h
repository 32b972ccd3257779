// A YAML document as plain data, built from libyaml's parse events (internal to engine/dsl).
//
// libyaml, the reference C parser, scans ~8× faster than yaml-cpp (0.12 s against 1.0 s for the
// 7.6 MB of a generated 10^5-node pipeline, most of `seqflow plan`'s time), and building this
// tree from its events skips yaml-cpp's node tree (~350 bytes and several allocations per node):
// every node sits in one deque (56 bytes each). The tree is what yaml-cpp's YAML::Load gives
// (yaml_tree_test compares them on every shipped pipeline): shapes, scalars, tags ("?" plain,
// "!" quoted, else the resolved tag), 0-based marks, duplicate map keys kept, an alias is the
// anchored node itself (with its mark), a plain `~`, `null` or empty value is IsNull, and a
// document that is empty or only comments is a null node with no mark.
// Thread safety: a YamlNode is immutable; copies share the document (reference counted).
#pragma once

#include <cstdint>
#include <deque>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace seqflow::dsl {

// A text that is not YAML, or YAML past the limits below; line and column are 0-based, -1 where
// no place applies.
struct YamlError : std::runtime_error {
  YamlError(const std::string& reason, int at_line, int at_column, bool nested_too_deep = false)
      : std::runtime_error(reason), line(at_line), column(at_column), too_deep(nested_too_deep) {}
  int line, column;
  bool too_deep;  // nested deeper than kMaxYamlDepth
};

// Far deeper than any pipeline; the walks over the tree recurse once per level.
inline constexpr int kMaxYamlDepth = 1000;

class YamlNode {
 public:
  YamlNode() = default;  // null, no mark

  bool IsNull() const { return data().type == Type::kNull; }
  bool IsScalar() const { return data().type == Type::kScalar; }
  bool IsSequence() const { return data().type == Type::kSequence; }
  bool IsMap() const { return data().type == Type::kMap; }

  const std::string& Scalar() const { return data().scalar; }  // "" unless a scalar
  const std::string& Tag() const;                              // "?" for a plain scalar
  int line() const { return data().line; }                     // 0-based; -1 with no mark
  int column() const { return data().column; }

  // Items of a list, pairs of a map; 0 for other shapes.
  size_t size() const { return static_cast<size_t>(data().count); }
  // The i-th pair of a map, in YAML order. REQUIRES: IsMap(), i < size().
  YamlNode Key(size_t i) const { return Child(2 * i); }
  YamlNode Value(size_t i) const { return Child(2 * i + 1); }

  // Range over the items of a list; empty for other shapes.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = YamlNode;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = YamlNode;
    Iterator(const YamlNode* list, size_t i) : list_(list), i_(i) {}
    YamlNode operator*() const { return list_->Child(i_); }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return i_ == other.i_; }

   private:
    const YamlNode* list_;
    size_t i_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, IsSequence() ? size() : 0); }

  // Parses the first document of `text`. Throws YamlError on a syntax error, an alias to no
  // anchor or inside the node it names, aliases expanding past a million nodes, more than 255
  // distinct tags, or nesting deeper than kMaxYamlDepth.
  static YamlNode Load(const std::string& text);

 private:
  enum class Type : uint8_t { kNull, kScalar, kSequence, kMap };
  struct Data {
    Type type = Type::kNull;
    uint8_t tag = 0;  // in Document::tags
    int32_t line = -1, column = -1;
    int32_t first = 0, count = 0;  // children in Document::children: items, or key, value, key, ...
    std::string scalar;
  };
  // Deques: growing one never holds the old and the new copy at once (a vector's doubling did,
  // 180 MB for 10^5 pipeline nodes).
  struct Document {
    std::deque<Data> nodes;
    std::deque<int32_t> children;
    std::vector<std::string> tags{""};  // the few distinct tags ("?", "!", ...), "" first
  };
  class Builder;

  YamlNode(std::shared_ptr<const Document> doc, int32_t index) : doc_(std::move(doc)), index_(index) {}
  const Data& data() const;
  YamlNode Child(size_t i) const { return YamlNode(doc_, doc_->children[data().first + i]); }

  std::shared_ptr<const Document> doc_;  // null for the default node
  int32_t index_ = 0;
};

}  // namespace seqflow::dsl
