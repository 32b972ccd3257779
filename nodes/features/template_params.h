// The `set` / `templates` parameters that name feature templates, shared by features.templates
// (CRF attributes) and crf.hysol (the feature types its HMMs emit).
#pragma once

#include <string>
#include <vector>

#include "engine/api/registry.h"
#include "nodes/features/feature_templates.h"

namespace seqflow {

// ParamSpecs `set` (a named template set, checked at validation) and `templates` (extra ones).
std::vector<ParamSpec> TemplateParamSpecs(const std::string& default_set);

// The templates those parameters name. Throws StatusError(Invalid) when they name none.
std::vector<FeatureTemplate> TemplatesFromParams(const Params& p);

}  // namespace seqflow
