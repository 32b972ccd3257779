#include "cli/pipeline_schema.h"

#include <cstdlib>
#include <variant>

#include <nlohmann/json.hpp>

namespace seqflow::cli {
namespace {

using Json = nlohmann::ordered_json;

// What every scalar may be instead of its value: a ${var} reference, expanded before parsing.
Json VarReference() { return {{"type", "string"}, {"pattern", "\\$\\{[^}]+\\}"}}; }

// A YAML scalar the engine reads as text: numbers may be written quoted.
Json NumberLike() {
  return {{"anyOf", Json::array({{{"type", "number"}},
                                 {{"type", "string"}, {"pattern", "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$"}},
                                 VarReference()})}};
}
Json IntegerLike() {
  return {{"anyOf", Json::array({{{"type", "integer"}}, {{"type", "string"}, {"pattern", "^[-+]?[0-9]+$"}},
                                 VarReference()})}};
}
Json BoolLike() {
  return {{"anyOf", Json::array({{{"type", "boolean"}}, {{"enum", {"true", "false"}}}, VarReference()})}};
}
Json Text() { return {{"type", Json::array({"string", "number", "boolean"})}}; }

// One of `choices`; a choice that reads as a number may be written unquoted.
Json Choice(const std::vector<std::string>& choices) {
  Json values = Json::array();
  for (const std::string& c : choices) {
    values.push_back(c);
    char* end = nullptr;
    const double number = std::strtod(c.c_str(), &end);
    if (!c.empty() && end == c.c_str() + c.size()) values.push_back(number);
  }
  return {{"anyOf", Json::array({{{"enum", values}}, VarReference()})}};
}

Json ListOf(const Json& item) {
  return {{"anyOf", Json::array({{{"type", "array"}, {"items", item}}, item})}};
}

Json JsonValue(const ParamValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

Json ParamSchema(const ParamSpec& param) {
  Json schema;
  switch (param.type) {
    case ParamType::kBool:
      schema = BoolLike();
      break;
    case ParamType::kInt:
      schema = IntegerLike();
      break;
    case ParamType::kDouble:
      schema = NumberLike();
      break;
    case ParamType::kString:
      schema = param.choices.empty() ? Text() : Choice(param.choices);
      break;
    case ParamType::kStringList:
      schema = ListOf(param.choices.empty() ? Text() : Choice(param.choices));
      break;
    case ParamType::kDoubleList:
      schema = ListOf(NumberLike());
      break;
    case ParamType::kPath:
      schema = {{"type", "string"}};
      break;
  }
  schema["description"] = param.doc + " (" + ParamTypeName(param.type) + ")";
  if (param.default_value) schema["default"] = JsonValue(*param.default_value);
  return schema;
}

// Places `leaf` at the dotted `name` inside nested object schemas, creating each level.
void PlaceNested(Json& properties, const std::string& name, const Json& leaf) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) {
    properties[name] = leaf;
    return;
  }
  Json& level = properties[name.substr(0, dot)];
  if (level.is_null()) level = {{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}};
  PlaceNested(level["properties"], name.substr(dot + 1), leaf);
}

Json PortsSchema(const Registry& registry, const KindSpec& kind) {
  const Json names = {{"type", "string"}};
  Json ports = Json::object();
  for (const PortSpec& port : kind.inputs) {
    ports[port.name] = {{"anyOf", Json::array({names, {{"type", "array"}, {"items", names}}})},
                        {"description", port.doc + " (" + registry.PortTypeText(port) + (port.list ? ", a list" : "") +
                                            (port.optional ? ", optional" : "") + ")"}};
  }
  return {{"anyOf", Json::array({{{"type", "array"}, {"items", names}},
                                 {{"type", "object"}, {"properties", ports}, {"additionalProperties", false}}})},
          {"description", "upstream nodes: in: [a, b] for the first port, or in: {port: node, ...}"}};
}

Json KindSchema(const Registry& registry, const KindSpec& kind) {
  Json properties = {{"kind", {{"const", kind.name}}},
                     {"role", {{"enum", {"test", "dev"}},
                               {"description", "this node's output is test data (only decoded and evaluated) or dev "
                                               "data (chosen by, never trained on)"}}},
                     {"oracle", BoolLike()},
                     {"transductive", BoolLike()}};
  if (!kind.inputs.empty()) properties["in"] = PortsSchema(registry, kind);
  Json required = Json::array({"kind"});
  for (const ParamSpec& param : kind.params) {
    const Json leaf = ParamSchema(param);
    if (param.name.find('.') != std::string::npos) PlaceNested(properties, param.name, leaf);
    properties[param.name] = leaf;
    if (!param.default_value && param.name.find('.') == std::string::npos) required.push_back(param.name);
  }
  return {{"description", kind.doc},
          {"type", "object"},
          {"properties", properties},
          {"required", required},
          {"additionalProperties", false}};
}

}  // namespace

std::string PipelineSchema(const Registry& registry) {
  Json definitions = Json::object();
  Json kinds = Json::array();
  Json by_kind = Json::array();
  for (const KindSpec* kind : registry.Kinds()) {
    kinds.push_back(kind->name);
    definitions[kind->name] = KindSchema(registry, *kind);
    by_kind.push_back({{"if", {{"properties", {{"kind", {{"const", kind->name}}}}}, {"required", {"kind"}}}},
                       {"then", {{"$ref", "#/definitions/" + kind->name}}}});
  }
  definitions["node"] = {{"type", "object"},
                         {"required", {"kind"}},
                         {"properties", {{"kind", {{"enum", kinds}, {"description", "`seqflow kinds` lists them"}}}}},
                         {"allOf", by_kind}};
  const Json scalar = {{"type", Json::array({"string", "number", "boolean"})}};
  const Json names = {{"type", "string"}};
  Json properties = Json::object();
  properties["name"] = names;
  properties["include"] = {{"anyOf", Json::array({names, {{"type", "array"}, {"items", names}}})},
                           {"description", "pipeline files whose vars, nodes and ablations merge in; this file wins"}};
  properties["vars"] = {{"type", "object"}, {"additionalProperties", scalar}};
  properties["nodes"] = {{"type", "object"}, {"additionalProperties", {{"$ref", "#/definitions/node"}}}};
  const Json axis = {{"type", "object"},
                     {"additionalProperties", {{"type", "array"}}},
                     {"description", "NODE.kind or NODE.PARAM -> the values, zipped across the axis"}};
  properties["ablations"] = {{"type", "object"}, {"additionalProperties", axis}};
  properties["repeat"] = IntegerLike();
  properties["repeats"] = {{"type", "object"},
                           {"properties", {{"seed", {{"type", "array"}, {"items", scalar}}}}},
                           {"additionalProperties", false}};
  const Json schema = {{"$schema", "http://json-schema.org/draft-07/schema#"},
                       {"title", "seqflow pipeline"},
                       {"type", "object"},
                       {"properties", properties},
                       {"additionalProperties", false},
                       {"definitions", definitions}};
  return schema.dump(1) + "\n";
}

}  // namespace seqflow::cli
