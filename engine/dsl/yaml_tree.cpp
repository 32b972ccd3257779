#include "engine/dsl/yaml_tree.h"

#include <yaml.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

namespace seqflow::dsl {
namespace {

struct Mark {
  int line, column;
};

Mark MarkOf(const yaml_mark_t& mark) { return {static_cast<int>(mark.line), static_cast<int>(mark.column)}; }

std::string_view Text(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : std::string_view(); }

// yaml-cpp's null: a plain scalar without a tag that YAML 1.2's core schema reads as null.
bool IsNullScalar(const yaml_event_t& e) {
  if (e.data.scalar.tag != nullptr || e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return false;
  const std::string_view v(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

// yaml-cpp's tags: the resolved tag when the text gives one, else "?" (plain scalars and
// collections) or "!" (quoted and block scalars).
std::string_view TagOf(const yaml_char_t* tag, bool plain) {
  if (tag != nullptr) return Text(tag);
  return plain ? "?" : "!";
}

// libyaml's reason and place. A reader error (bytes that are not YAML's characters: invalid
// UTF-8, a control character) has only a byte offset and the character; its place is counted here.
YamlError ParseError(const yaml_parser_t& parser, const std::string& text) {
  std::string reason = parser.problem ? parser.problem : "unreadable YAML";
  if (parser.error != YAML_READER_ERROR) {
    if (parser.context) reason += std::string(" ") + parser.context;
    return YamlError(reason, static_cast<int>(parser.problem_mark.line), static_cast<int>(parser.problem_mark.column));
  }
  // libyaml gives the offending byte for UTF-8 errors, the character for the others.
  const bool utf8 = std::string_view(reason).find("UTF-8") != std::string_view::npos;
  if (parser.problem_value >= 0)
    reason += utf8 ? fmt::format(" (byte 0x{:02X})", parser.problem_value)
                   : fmt::format(" (U+{:04X})", parser.problem_value);
  if (utf8) reason += "; a pipeline file is UTF-8 text";
  const size_t offset = std::min(parser.problem_offset, text.size());
  int line = 0, column = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line, column = 0;
    } else if ((text[i] & 0xC0) != 0x80) {
      ++column;  // one per character, as libyaml's marks count
    }
  }
  return YamlError(reason, line, column);
}

}  // namespace

// Builds the Document as the events arrive: a node is complete when its event (or its
// container's end) arrives, and then becomes the next child of the innermost open container.
class YamlNode::Builder {
 public:
  explicit Builder(Document& doc) : doc_(doc) {}
  int32_t root() const { return root_; }

  void OnNull(Mark mark, std::string_view anchor) { Complete(Add(Type::kNull, mark, anchor, "", "")); }
  // The walks over the tree (DSL sections, merge keys) expand every alias, so an alias inside the
  // node it names would make them loop forever, and aliases of aliases (`b: [*a, *a]`, `c: [*b,
  // *b]`, ...) make them exponential in the text: both are errors at the alias.
  void OnAlias(Mark mark, std::string_view anchor) {
    auto found = anchors_.find(std::string(anchor));
    if (found == anchors_.end())
      throw YamlError("alias *" + std::string(anchor) + " names no anchor before it (write &" + std::string(anchor) +
                          " on the node it refers to)",
                      mark.line, mark.column);
    const int32_t node = found->second;
    for (const OpenContainer& open : open_)
      if (open.node == node) throw YamlError("alias inside the node it refers to (a cycle)", mark.line, mark.column);
    alias_nodes_ += expanded_[node];
    if (alias_nodes_ > kMaxAliasNodes)
      throw YamlError("aliases expand the document by more than " + std::to_string(kMaxAliasNodes) +
                          " nodes (aliases of aliases?)",
                      mark.line, mark.column);
    Complete(node);
  }
  void OnScalar(Mark mark, std::string_view tag, std::string_view anchor, std::string_view value) {
    Complete(Add(Type::kScalar, mark, anchor, tag, value));
  }
  void OnOpen(Type type, Mark mark, std::string_view tag, std::string_view anchor) {
    if (static_cast<int>(open_.size()) >= kMaxYamlDepth)
      throw YamlError("YAML nested " + std::to_string(open_.size() + 1) +
                          " levels deep here, deeper than the parser follows; a pipeline needs a few",
                      mark.line, mark.column, /*too_deep=*/true);
    open_.push_back({Add(type, mark, anchor, tag, ""), {}});
  }
  void OnClose() {
    OpenContainer done = std::move(open_.back());
    open_.pop_back();
    Data& data = doc_.nodes[done.node];
    data.first = static_cast<int32_t>(doc_.children.size());
    data.count = static_cast<int32_t>(data.type == Type::kMap ? done.children.size() / 2 : done.children.size());
    doc_.children.insert(doc_.children.end(), done.children.begin(), done.children.end());
    for (int32_t child : done.children) expanded_[done.node] += expanded_[child];
    Complete(done.node);
  }

 private:
  struct OpenContainer {
    int32_t node;
    std::vector<int32_t> children;
  };

  int32_t Add(Type type, Mark mark, std::string_view anchor, std::string_view tag, std::string_view scalar) {
    int32_t index = static_cast<int32_t>(doc_.nodes.size());
    Data& data = doc_.nodes.emplace_back();
    data.type = type;
    data.line = mark.line;
    data.column = mark.column;
    data.tag = TagIndex(tag, mark);
    data.scalar = scalar;
    expanded_.push_back(1);
    if (!anchor.empty()) anchors_[std::string(anchor)] = index;  // a later anchor of one name wins
    return index;
  }
  uint8_t TagIndex(std::string_view tag, Mark mark) {
    for (size_t i = 0; i < doc_.tags.size(); ++i)
      if (doc_.tags[i] == tag) return static_cast<uint8_t>(i);
    if (doc_.tags.size() > UINT8_MAX) throw YamlError("more than 255 distinct tags", mark.line, mark.column);
    doc_.tags.emplace_back(tag);
    return static_cast<uint8_t>(doc_.tags.size() - 1);
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
  std::unordered_map<std::string, int32_t> anchors_;  // anchor name -> node
  std::vector<int64_t> expanded_;                      // node -> its nodes with every alias inside expanded
  int64_t alias_nodes_ = 0;                            // nodes the aliases add when expanded
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
  auto doc = std::make_shared<Document>();
  Builder builder(*doc);
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) throw YamlError("out of memory starting the YAML parser", -1, -1);
  struct Deleter {
    yaml_parser_t* p;
    ~Deleter() { yaml_parser_delete(p); }
  } delete_parser{&parser};
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  // The first document only, as yaml-cpp's Parser::HandleNextDocument.
  for (bool done = false; !done;) {
    yaml_event_t e;
    if (!yaml_parser_parse(&parser, &e)) throw ParseError(parser, text);
    struct EventDeleter {
      yaml_event_t* e;
      ~EventDeleter() { yaml_event_delete(e); }
    } delete_event{&e};
    const Mark mark = MarkOf(e.start_mark);
    switch (e.type) {
      case YAML_SCALAR_EVENT:
        if (IsNullScalar(e))
          builder.OnNull(mark, Text(e.data.scalar.anchor));
        else
          builder.OnScalar(mark, TagOf(e.data.scalar.tag, e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE),
                           Text(e.data.scalar.anchor),
                           std::string_view(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length));
        break;
      case YAML_ALIAS_EVENT: builder.OnAlias(mark, Text(e.data.alias.anchor)); break;
      case YAML_SEQUENCE_START_EVENT:
        builder.OnOpen(Type::kSequence, mark, TagOf(e.data.sequence_start.tag, true),
                       Text(e.data.sequence_start.anchor));
        break;
      case YAML_MAPPING_START_EVENT:
        builder.OnOpen(Type::kMap, mark, TagOf(e.data.mapping_start.tag, true), Text(e.data.mapping_start.anchor));
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: builder.OnClose(); break;
      case YAML_DOCUMENT_END_EVENT:
      case YAML_STREAM_END_EVENT: done = true; break;
      default: break;
    }
  }
  if (builder.root() < 0) return YamlNode();
  return YamlNode(std::move(doc), builder.root());
}

}  // namespace seqflow::dsl
