// Escaping for text written into XML, SVG and HTML documents.
#pragma once

#include <string>
#include <string_view>

namespace seqflow {

// `s` safe inside element content and inside single- or double-quoted attribute values.
inline std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace seqflow
