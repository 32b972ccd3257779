#include "nodes/features/feature_views.h"

#include <fmt/format.h>

namespace seqflow {

int32_t FeatureViews::AttributesInView(int32_t v) const {
  int32_t n = 0;
  for (int32_t x : view) n += x == v ? 1 : 0;
  return n;
}

void FeatureViews::Save(ByteWriter& w) const {
  w.Str(split);
  ByteWriter dict;
  dictionary->Save(dict);
  w.Str(dict.bytes());
  w.I32s(view.data(), view.size());
}

std::shared_ptr<const FeatureViews> FeatureViews::Load(ByteReader& r) {
  auto views = std::make_shared<FeatureViews>();
  views->split = r.Str();
  const std::string dict = r.Str();
  ByteReader dict_reader(dict);
  views->dictionary = FeatureDictionary::Load(dict_reader);
  views->view = r.I32s();
  if (static_cast<int64_t>(views->view.size()) != views->dictionary->num_attributes())
    throw StatusError(Status::Corruption(fmt::format("FeatureViews: {} views for {} attributes", views->view.size(),
                                                     views->dictionary->num_attributes())));
  for (int32_t v : views->view)
    if (v != 0 && v != 1) throw StatusError(Status::Corruption("FeatureViews: a view id other than 0 or 1"));
  return views;
}

std::string FeatureViews::Describe() const {
  return fmt::format("{} views: {} + {} attributes from {} templates", split, AttributesInView(0), AttributesInView(1),
                     dictionary->templates().size());
}

}  // namespace seqflow
