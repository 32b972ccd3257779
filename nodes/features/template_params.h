// The `set` / `templates` parameters that name feature templates, shared by features.templates
// (CRF attributes) and crf.hysol (the feature types its HMMs emit). A kind holds a TemplateChoice
// in its options struct, with its own default set, and Includes TemplateParams() for it.
#pragma once

#include <string>
#include <vector>

#include "engine/api/param_table.h"
#include "nodes/features/feature_templates.h"

namespace seqflow {

struct TemplateChoice {
  std::string set = "standard_chunking";  // a named template set, or "none"
  std::vector<std::string> templates;     // extra templates, each its own feature type
};

// `set` (checked at validation) and `templates`.
ParamTable<TemplateChoice> TemplateParams();

// The templates a choice names; Status::Invalid when it names none.
Result<std::vector<FeatureTemplate>> TemplatesOf(const TemplateChoice& choice);

}  // namespace seqflow
