// The template-naming parameters (template_params.h).
#include "nodes/features/template_params.h"

namespace seqflow {

namespace {

constexpr const char* kNoSet = "none";

std::string CheckTemplateSet(const ParamValue& value) {
  const std::string& name = std::get<std::string>(value);
  if (name == kNoSet) return "";
  const Status status = TemplateSetByName(name).status();
  return status.ok() ? "" : status.message();
}

}  // namespace

ParamTable<TemplateChoice> TemplateParams() {
  using O = TemplateChoice;
  ParamTable<O> table;
  table
      .String("set", &O::set,
              "named set: standard_chunking, hysol_chunking, hysol_ner, multiview_ner, multiview_ner_ngrams, or "
              "none (only `templates`)")
      .Check(CheckTemplateSet)
      .StringList("templates", &O::templates, "extra templates, each its own feature type (group)");
  return table;
}

Result<std::vector<FeatureTemplate>> TemplatesOf(const TemplateChoice& choice) {
  std::vector<FeatureTemplate> templates;
  if (choice.set != kNoSet) {
    Result<std::vector<FeatureTemplate>> set = TemplateSetByName(choice.set);
    if (!set.ok()) return set.status();
    templates = std::move(set).value();
  }
  for (const std::string& text : choice.templates) templates.push_back({text, text, text});
  if (templates.empty()) return Status::Invalid("no feature templates: name a template set in `set` or list `templates`");
  return templates;
}

}  // namespace seqflow
