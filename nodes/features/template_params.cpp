// The template-naming parameters (template_params.h).
#include "nodes/features/template_params.h"

#include "engine/api/node.h"

namespace seqflow {

namespace {

constexpr const char* kNoSet = "none";

std::string CheckTemplateSet(const ParamValue& value) {
  const std::string& name = std::get<std::string>(value);
  if (name == kNoSet) return "";
  try {
    TemplateSetByName(name);
  } catch (const StatusError& e) {
    return e.status().message();
  }
  return "";
}

}  // namespace

std::vector<ParamSpec> TemplateParamSpecs(const std::string& default_set) {
  return {
      ParamSpec::String("set", default_set,
                        "named template set: standard_chunking, hysol_chunking, hysol_ner, or none (only `templates`)")
          .Check(CheckTemplateSet),
      ParamSpec::StringList("templates", {}, "extra templates, each its own feature type (group)")};
}

std::vector<FeatureTemplate> TemplatesFromParams(const Params& p) {
  std::vector<FeatureTemplate> templates;
  if (p.GetString("set") != kNoSet) templates = TemplateSetByName(p.GetString("set"));
  for (const std::string& text : p.GetStrings("templates")) templates.push_back({text, text, text});
  if (templates.empty())
    throw StatusError(Status::Invalid("no feature templates: name a template set in `set` or list `templates`"));
  return templates;
}

}  // namespace seqflow
