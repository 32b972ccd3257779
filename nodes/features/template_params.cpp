// The template-naming parameters (template_params.h).
#include "nodes/features/template_params.h"

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

ParamTable<TemplateChoice> TemplateParams() {
  using O = TemplateChoice;
  ParamTable<O> table;
  table
      .String("set", &O::set,
              "named template set: standard_chunking, hysol_chunking, hysol_ner, or none (only `templates`)")
      .Check(CheckTemplateSet)
      .StringList("templates", &O::templates, "extra templates, each its own feature type (group)");
  return table;
}

std::vector<FeatureTemplate> TemplatesOf(const TemplateChoice& choice) {
  std::vector<FeatureTemplate> templates;
  if (choice.set != kNoSet) templates = TemplateSetByName(choice.set);
  for (const std::string& text : choice.templates) templates.push_back({text, text, text});
  if (templates.empty())
    throw StatusError(Status::Invalid("no feature templates: name a template set in `set` or list `templates`"));
  return templates;
}

}  // namespace seqflow
