#include "engine/record/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "engine/record/report.h"

namespace seqflow {
namespace {

constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;  // margins in pixels
constexpr size_t kSeriesInsideLegend = 4;
// Ten colours (matplotlib's tab10), so that a learning curve's evaluators stay apart.
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string Num(double v, int decimals = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
};

// Widens [lo, hi] to whole steps of 1, 2 or 5 x 10^k, about five of them.
void NiceAxis(Range r, double& min, double& max, double& step) {
  if (!(r.lo <= r.hi)) r = {0, 1};
  if (r.lo == r.hi) {
    double pad = r.lo == 0 ? 1 : std::abs(r.lo) * 0.1;
    r = {r.lo - pad, r.hi + pad};
  }
  double raw = (r.hi - r.lo) / 5, mag = std::pow(10, std::floor(std::log10(raw))), norm = raw / mag;
  step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  min = std::floor(r.lo / step + 1e-9) * step;
  max = std::ceil(r.hi / step - 1e-9) * step;
}

// Tick values min, min + step, ..., max, and their labels with as many decimals as the step needs.
std::vector<std::pair<double, std::string>> Ticks(double min, double max, double step) {
  int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  std::vector<std::pair<double, std::string>> ticks;
  for (int i = 0; min + i * step <= max + step * 1e-6; ++i) {
    double v = min + i * step;
    if (std::abs(v) < step * 1e-9) v = 0;  // no "-0.0"
    ticks.emplace_back(v, Num(v, decimals));
  }
  return ticks;
}

std::string Line(double x1, double y1, double x2, double y2, const std::string& attrs) {
  return "<line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) + "\" x2=\"" + Num(x2) + "\" y2=\"" + Num(y2) + "\" " + attrs +
         "/>\n";
}

std::string Text(double x, double y, std::string_view text, const std::string& attrs) {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" " + attrs + ">" + Escape(text) + "</text>\n";
}

// A tick per decade, labelled with its value: 100, 1000, ..., 1e+06 and beyond.
std::vector<std::pair<double, std::string>> DecadeTicks(double min_exponent, double max_exponent) {
  std::vector<std::pair<double, std::string>> ticks;
  for (double e = min_exponent; e <= max_exponent + 1e-9; ++e) {
    const double v = std::pow(10.0, e);
    char label[32];
    std::snprintf(label, sizeof label, e >= 0 && e < 6 ? "%.0f" : "%g", v);
    ticks.emplace_back(v, label);
  }
  return ticks;
}

std::string Axes(const LinePlot& plot, const PlotFrame& f) {
  std::string out = "<g class=\"axes\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#333\">\n";
  for (const auto& [v, label] : f.log_x ? DecadeTicks(f.x_min, f.x_max) : Ticks(f.x_min, f.x_max, f.x_step)) {
    out += Line(f.PixelX(v), f.top, f.PixelX(v), f.bottom, "stroke=\"#eee\"");
    out += Line(f.PixelX(v), f.bottom, f.PixelX(v), f.bottom + 5, "stroke=\"#333\"");
    out += Text(f.PixelX(v), f.bottom + 18, label, "text-anchor=\"middle\"");
  }
  for (const auto& [v, label] : Ticks(f.y_min, f.y_max, f.y_step)) {
    out += Line(f.left, f.PixelY(v), f.right, f.PixelY(v), "stroke=\"#eee\"");
    out += Line(f.left - 5, f.PixelY(v), f.left, f.PixelY(v), "stroke=\"#333\"");
    out += Text(f.left - 8, f.PixelY(v) + 4, label, "text-anchor=\"end\"");
  }
  out += Line(f.left, f.bottom, f.right, f.bottom, "stroke=\"#333\"");
  out += Line(f.left, f.top, f.left, f.bottom, "stroke=\"#333\"");
  out += Text((f.left + f.right) / 2, f.bottom + 40, plot.x_label, "class=\"x-label\" text-anchor=\"middle\"");
  double mid = (f.top + f.bottom) / 2;
  out += Text(18, mid, plot.y_label,
              "class=\"y-label\" text-anchor=\"middle\" transform=\"rotate(-90 18 " + Num(mid) + ")\"");
  return out + "</g>\n";
}

std::string Series(const LinePlot& plot, const PlotFrame& f) {
  std::string out;
  for (size_t s = 0; s < plot.series.size(); ++s) {
    const PlotSeries& series = plot.series[s];
    std::string points;
    for (size_t i = 0; i < series.x.size(); ++i) {
      if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i])) continue;
      points += (points.empty() ? "" : " ") + Num(f.PixelX(series.x[i])) + "," + Num(f.PixelY(series.y[i]));
    }
    const std::string color = kColors[s % std::size(kColors)];
    out += "<polyline class=\"series\" fill=\"none\" stroke-width=\"1.5\" stroke=\"" + color + "\" points=\"" + points +
           "\"><title>" + Escape(series.name) + "</title></polyline>\n";
    for (size_t i = 0; i < series.y_error.size() && i < series.x.size(); ++i) {
      const double e = series.y_error[i];
      if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i]) || !std::isfinite(e) || e <= 0) continue;
      const double px = f.PixelX(series.x[i]), lo = f.PixelY(series.y[i] - e), hi = f.PixelY(series.y[i] + e);
      const std::string attrs = "class=\"error-bar\" stroke=\"" + color + "\"";
      out += Line(px, lo, px, hi, attrs) + Line(px - 3, lo, px + 3, lo, attrs) + Line(px - 3, hi, px + 3, hi, attrs);
    }
  }
  return out;
}

double LegendWidth(const LinePlot& plot) {
  size_t longest = 0;
  for (const PlotSeries& series : plot.series) longest = std::max(longest, series.name.size());
  return std::max(150.0, 30.0 + 6.0 * static_cast<double>(longest));
}

bool LegendOutside(const LinePlot& plot) { return plot.series.size() > kSeriesInsideLegend; }

// Markers within kSameMarkerPixels of one another share one line and one label ("mle,
// max_entropy": criteria that chose the same λ), written left of the line in the plot's right
// half (below the legend there) so that no label runs off the canvas or over the legend, and
// staggered down so neighbouring groups stay legible.
std::string Markers(const LinePlot& plot, const PlotFrame& f) {
  constexpr double kSameMarkerPixels = 2;
  std::vector<std::pair<double, std::string>> groups;  // pixel x, label
  for (const PlotMarker& m : plot.markers) {
    if (!std::isfinite(m.x)) continue;
    const double px = f.PixelX(m.x);
    auto same = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return std::abs(g.first - px) <= kSameMarkerPixels; });
    if (same == groups.end())
      groups.emplace_back(px, m.label);
    else
      same->second += ", " + m.label;
  }
  std::string out;
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& [px, label] = groups[i];
    out += Line(px, f.top, px, f.bottom, "class=\"marker\" stroke=\"#555\" stroke-dasharray=\"4 3\"");
    const bool right_half = px > 0.5 * (f.left + f.right);
    const double below_legend = right_half && !LegendOutside(plot) ? 16 * static_cast<double>(plot.series.size()) : 0;
    out += Text(right_half ? px - 3 : px + 3, f.top + 12 + below_legend + 12 * static_cast<double>(i % 4), label,
                std::string("class=\"marker-label\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#555\"") +
                    (right_half ? " text-anchor=\"end\"" : ""));
  }
  return out;
}

// A colour swatch and the name of each series: top-right inside the plot area, moved left as far
// as the longest name needs (about 6 pixels a character at 11 px) to stay on the canvas; right of
// the plot area when there are more than kSeriesInsideLegend series (they would cover the lines).
std::string Legend(const LinePlot& plot, const PlotFrame& f) {
  const double swatch = LegendOutside(plot) ? f.right + 15 : f.right - LegendWidth(plot);
  std::string out = "<g class=\"legend\" font-family=\"sans-serif\" font-size=\"11\">\n";
  for (size_t s = 0; s < plot.series.size(); ++s) {
    double y = f.top + 14 + 16 * static_cast<double>(s);
    out += Line(swatch, y - 4, swatch + 20, y - 4,
                "stroke-width=\"2\" stroke=\"" + std::string(kColors[s % std::size(kColors)]) + "\"");
    out += Text(swatch + 25, y, plot.series[s].name, "fill=\"#333\"");
  }
  return out + "</g>\n";
}

std::vector<std::string> SplitCsvLine(std::string_view line) {
  std::vector<std::string> fields(1);
  for (char c : line)
    if (c == ',')
      fields.emplace_back();
    else if (c != '\r')
      fields.back() += c;
  return fields;
}

// Rows of numbers under `header`; an empty field is NaN. Only the `numeric` columns are read: a
// trace may hold text columns beside the ones drawn (crf.hysol's `step`); those read as NaN.
Result<std::vector<std::vector<double>>> ParseRows(std::string_view csv, size_t columns,
                                                   const std::vector<size_t>& numeric) {
  std::vector<std::vector<double>> rows;
  size_t line_no = 1, pos = csv.find('\n');
  while (pos != std::string_view::npos && pos + 1 < csv.size()) {
    size_t end = csv.find('\n', pos + 1);
    std::string_view line = csv.substr(pos + 1, end == std::string_view::npos ? end : end - pos - 1);
    pos = end;
    ++line_no;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> fields = SplitCsvLine(line);
    if (fields.size() != columns)
      return Status::Invalid("line " + std::to_string(line_no) + ": " + std::to_string(fields.size()) +
                             " fields, header has " + std::to_string(columns));
    rows.emplace_back(columns, std::nan(""));
    for (size_t c : numeric) {
      const std::string& field = fields[c];
      char* stop = nullptr;
      if (!field.empty()) rows.back()[c] = std::strtod(field.c_str(), &stop);
      if (!field.empty() && *stop != '\0')
        return Status::Invalid("line " + std::to_string(line_no) + ": not a number: " + field);
    }
  }
  return rows;
}

// The columns of `header` that `names` select: exact names, and "*SUFFIX" for every column
// ending in SUFFIX (in header order); each column once.
std::vector<std::string> Selected(const std::vector<std::string>& header, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  auto add = [&](const std::string& column) {
    if (std::find(out.begin(), out.end(), column) == out.end()) out.push_back(column);
  };
  for (const std::string& name : names)
    for (const std::string& column : header)
      if (name.starts_with('*') ? column.size() >= name.size() && column.ends_with(std::string_view(name).substr(1))
                                : column == name)
        add(column);
  return out;
}

// A marker at the x where the first series peaks: where the path is best on that metric.
void MarkMaximum(LinePlot& plot) {
  const PlotSeries& first = plot.series.front();
  size_t best = first.y.size();
  for (size_t i = 0; i < first.y.size(); ++i)
    if (std::isfinite(first.x[i]) && std::isfinite(first.y[i]) &&
        (best == first.y.size() || first.y[i] > first.y[best]))
      best = i;
  if (best == first.y.size()) return;
  plot.markers.push_back({first.x[best], "max " + first.name + " at " + plot.x_label + "=" + Num(first.x[best], 3)});
}

}  // namespace

PlotFrame ComputeFrame(const LinePlot& plot) {
  Range xs, ys;
  for (const PlotSeries& s : plot.series)
    for (size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
        xs.Add(s.x[i]), ys.Add(s.y[i]);
        if (i < s.y_error.size() && std::isfinite(s.y_error[i]))
          ys.Add(s.y[i] - s.y_error[i]), ys.Add(s.y[i] + s.y_error[i]);
      }
  for (const PlotMarker& m : plot.markers) xs.Add(m.x);
  PlotFrame f;
  f.log_x = plot.log_x;
  if (f.log_x && xs.lo <= xs.hi) {
    f.x_min = std::floor(std::log10(xs.lo) + 1e-9), f.x_max = std::ceil(std::log10(xs.hi) - 1e-9), f.x_step = 1;
    if (f.x_max == f.x_min) ++f.x_max;
  } else if (f.log_x) {
    f.x_min = 0, f.x_max = 1, f.x_step = 1;
  } else {
    NiceAxis(xs, f.x_min, f.x_max, f.x_step);
  }
  NiceAxis(ys, f.y_min, f.y_max, f.y_step);
  f.left = kLeft;
  f.right = plot.width - kRight - (LegendOutside(plot) ? LegendWidth(plot) : 0);
  f.top = kTop;
  f.bottom = plot.height - kBottom;
  return f;
}

std::string RenderSvg(const LinePlot& plot) {
  PlotFrame f = ComputeFrame(plot);
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(plot.width) + "\" height=\"" +
                    std::to_string(plot.height) + "\" viewBox=\"0 0 " + std::to_string(plot.width) + " " +
                    std::to_string(plot.height) + "\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += Text(plot.width / 2.0, 22, plot.title,
              "class=\"title\" text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"14\"");
  out += Axes(plot, f) + Markers(plot, f) + Series(plot, f) + Legend(plot, f);
  return out + "</svg>\n";
}

Result<LinePlot> TablePlot(std::string_view csv, const std::string& title, const AttachmentSpec& table) {
  std::vector<std::string> header = SplitCsvLine(csv.substr(0, csv.find('\n')));
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const size_t x = column(table.x);
  if (x == header.size()) return Status::NotFound(table.suffix + " has no " + table.x + " column");
  std::vector<std::string> names = Selected(header, table.y);
  // A path run without a test set still has its criteria (e.g. the label entropy along λ).
  if (names.empty()) names = Selected(header, table.y_fallback);
  if (names.empty()) return Status::NotFound(table.suffix + " has none of the columns it declares to plot");
  std::vector<size_t> numeric = {x};
  for (const std::string& name : names) numeric.push_back(column(name));
  Result<std::vector<std::vector<double>>> rows = ParseRows(csv, header.size(), numeric);
  if (!rows.ok()) return rows.status().Annotate(table.suffix);
  LinePlot plot;
  plot.title = title;
  plot.x_label = table.x_label.empty() ? table.x : table.x_label;
  plot.y_label = names.size() == 1 ? names[0] : "metric";
  for (const std::string& name : names) {
    PlotSeries series{name, {}, {}, {}};
    for (const auto& row : *rows) series.x.push_back(row[x]), series.y.push_back(row[column(name)]);
    plot.series.push_back(std::move(series));
  }
  if (table.mark_max) MarkMaximum(plot);
  return plot;
}

std::vector<LinePlot> LearningCurvePlots(const ReportTable& table) {
  // Every row "KEY=VALUE, ..." with the same keys, numeric values and its own value of the first
  // key (one axis whose keys move together, as `labeled.labeled` and `holdout.labeled` do).
  std::vector<std::string> keys;
  std::vector<double> xs;
  for (const ReportRow& row : table.rows) {
    std::vector<std::string> row_keys;
    double x = 0;
    for (size_t start = 0; start <= row.label.size();) {
      const size_t end = std::min(row.label.find(", ", start), row.label.size());
      const std::string pair = row.label.substr(start, end - start);
      const size_t eq = pair.find('=');
      if (eq == std::string::npos) return {};
      const std::string value = pair.substr(eq + 1);
      char* stop = nullptr;
      const double v = std::strtod(value.c_str(), &stop);
      if (value.empty() || *stop != '\0') return {};
      if (row_keys.empty()) x = v;
      row_keys.push_back(pair.substr(0, eq));
      start = end + 2;
    }
    if ((!keys.empty() && row_keys != keys) || std::find(xs.begin(), xs.end(), x) != xs.end()) return {};
    keys = row_keys;
    xs.push_back(x);
  }
  if (xs.size() < 2) return {};
  const std::string& axis = keys.front();
  const auto [x_lo, x_hi] = std::minmax_element(xs.begin(), xs.end());
  const bool log_x = *x_lo > 0 && *x_hi >= 100 * *x_lo;
  std::vector<std::string> metrics;  // in the order the columns first name them
  for (const std::string& column : table.columns)
    if (std::string metric = SplitColumn(column).second;
        std::find(metrics.begin(), metrics.end(), metric) == metrics.end())
      metrics.push_back(metric);
  std::vector<LinePlot> plots;
  for (const std::string& metric : metrics) {
    LinePlot plot;
    plot.title = metric + " vs " + axis + " (mean ± sd over repetitions)";
    plot.x_label = axis;
    plot.y_label = metric;
    plot.log_x = log_x;
    for (size_t c = 0; c < table.columns.size(); ++c) {
      auto [node, column_metric] = SplitColumn(table.columns[c]);
      if (column_metric != metric) continue;
      PlotSeries series{node, {}, {}, {}};
      for (size_t r = 0; r < table.rows.size(); ++r) {
        const std::optional<ReportCell>& cell = table.rows[r].cells[c];
        if (!cell) continue;
        series.x.push_back(xs[r]), series.y.push_back(cell->mean), series.y_error.push_back(cell->stddev);
      }
      if (!series.x.empty()) plot.series.push_back(std::move(series));
    }
    if (LegendOutside(plot)) plot.width += static_cast<int>(LegendWidth(plot));  // the plot area keeps its width
    if (!plot.series.empty()) plots.push_back(std::move(plot));
  }
  return plots;
}

}  // namespace seqflow
