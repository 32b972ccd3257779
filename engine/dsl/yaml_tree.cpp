#include "engine/dsl/yaml_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace seqflow::dsl {

// What yaml-cpp's NodeBuilder does with each event, into a Document: a node is complete when
// its event (or its container's end) arrives, and then becomes the next child of the innermost
// open container.
class YamlNode::Builder : public YAML::EventHandler {
 public:
  explicit Builder(Document& doc) : doc_(doc) {}
  int32_t root() const { return root_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Complete(Add(Type::kNull, mark, anchor, "", ""));
  }
  // The walks over the tree (DSL sections, merge keys) expand every alias, so an alias inside the
  // node it names would make them loop forever, and aliases of aliases (`b: [*a, *a]`, `c: [*b,
  // *b]`, ...) make them exponential in the text: both are errors at the alias.
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const int32_t node = anchors_.at(anchor);
    for (const OpenContainer& open : open_)
      if (open.node == node) throw YAML::ParserException(mark, "alias inside the node it refers to (a cycle)");
    alias_nodes_ += expanded_[node];
    if (alias_nodes_ > kMaxAliasNodes)
      throw YAML::ParserException(mark, "aliases expand the document by more than " +
                                            std::to_string(kMaxAliasNodes) + " nodes (aliases of aliases?)");
    Complete(node);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Complete(Add(Type::kScalar, mark, anchor, tag, value));
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(Add(Type::kSequence, mark, anchor, tag, ""));
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(Add(Type::kMap, mark, anchor, tag, ""));
  }
  void OnMapEnd() override { Close(); }

 private:
  struct OpenContainer {
    int32_t node;
    std::vector<int32_t> children;
  };

  int32_t Add(Type type, const YAML::Mark& mark, YAML::anchor_t anchor, const std::string& tag,
              const std::string& scalar) {
    int32_t index = static_cast<int32_t>(doc_.nodes.size());
    Data& data = doc_.nodes.emplace_back();
    data.type = type;
    data.line = mark.line;
    data.column = mark.column;
    data.tag = TagIndex(tag);
    data.scalar = scalar;
    expanded_.push_back(1);
    if (anchor != YAML::NullAnchor) {
      if (anchors_.size() <= anchor) anchors_.resize(anchor + 1, -1);
      anchors_[anchor] = index;
    }
    return index;
  }
  uint8_t TagIndex(const std::string& tag) {
    for (size_t i = 0; i < doc_.tags.size(); ++i)
      if (doc_.tags[i] == tag) return static_cast<uint8_t>(i);
    if (doc_.tags.size() > UINT8_MAX)
      throw YAML::ParserException(YAML::Mark::null_mark(), "more than 255 distinct tags");
    doc_.tags.push_back(tag);
    return static_cast<uint8_t>(doc_.tags.size() - 1);
  }
  void Open(int32_t node) { open_.push_back({node, {}}); }
  void Close() {
    OpenContainer done = std::move(open_.back());
    open_.pop_back();
    Data& data = doc_.nodes[done.node];
    data.first = static_cast<int32_t>(doc_.children.size());
    data.count = static_cast<int32_t>(data.type == Type::kMap ? done.children.size() / 2 : done.children.size());
    doc_.children.insert(doc_.children.end(), done.children.begin(), done.children.end());
    for (int32_t child : done.children) expanded_[done.node] += expanded_[child];
    Complete(done.node);
  }
  void Complete(int32_t node) {
    if (open_.empty())
      root_ = node;
    else
      open_.back().children.push_back(node);
  }

  // Far above what a pipeline's merge keys add, far below what exhausts memory.
  static constexpr int64_t kMaxAliasNodes = 1'000'000;

  Document& doc_;
  std::vector<int32_t> anchors_;  // anchor id -> node
  std::vector<int64_t> expanded_;  // node -> its nodes with every alias inside expanded
  int64_t alias_nodes_ = 0;        // nodes the aliases add when expanded
  std::vector<OpenContainer> open_;
  int32_t root_ = -1;
};

const YamlNode::Data& YamlNode::data() const {
  static const Data kNull;
  return doc_ ? doc_->nodes[index_] : kNull;
}

const std::string& YamlNode::Tag() const {
  static const std::string kNone;
  return doc_ ? doc_->tags[data().tag] : kNone;
}

YamlNode YamlNode::Load(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  auto doc = std::make_shared<Document>();
  Builder builder(*doc);
  parser.HandleNextDocument(builder);
  if (builder.root() < 0) return YamlNode();
  int32_t root = builder.root();
  return YamlNode(std::move(doc), root);
}

}  // namespace seqflow::dsl
