// A small dependency-free SVG line-plot writer for `seqflow report --plots`: axes with ticks
// and labels, named series with a legend, optional labelled vertical markers; and the plot of a
// table a node attaches as its kind declares it (AttachmentType::kTable: a homotopy path's
// metrics against λ, a training trace's objective against the iteration, ...).
// Pure: text in, SVG text out. Thread-safe (no shared state).
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/record_spec.h"
#include "engine/base/status.h"

namespace seqflow {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;     // REQUIRES: same size; non-finite points are left out of the line
  std::vector<double> y_error;  // empty, or one half-width per point: a bar from y - e to y + e
};

struct PlotMarker {
  double x = 0;
  std::string label;
};

struct LinePlot {
  std::string title, x_label, y_label;
  std::vector<PlotSeries> series;
  std::vector<PlotMarker> markers;  // dashed vertical lines, labelled at the top
  int width = 640, height = 400;    // pixels
  bool log_x = false;               // x on a log10 axis with a tick per decade (REQUIRES: every x > 0)
};

// Where data lands on the canvas. The data range is widened to whole tick steps (1, 2 or 5
// times a power of ten, about five ticks per axis; on a log x axis, whole decades) and covers
// every finite point and marker; an empty or flat range is padded so the mapping stays invertible.
struct PlotFrame {
  double x_min = 0, x_max = 1, x_step = 0.2;  // log_x: the decades' exponents, step 1
  double y_min = 0, y_max = 1, y_step = 0.2;
  double left = 0, right = 0, top = 0, bottom = 0;  // plot area in pixels; y grows downwards
  bool log_x = false;

  double PixelX(double x) const {
    return left + ((log_x ? std::log10(x) : x) - x_min) / (x_max - x_min) * (right - left);
  }
  double PixelY(double y) const { return bottom - (y - y_min) / (y_max - y_min) * (bottom - top); }
};

PlotFrame ComputeFrame(const LinePlot& plot);

// A standalone SVG document. Each series is one <polyline class="series"> whose points are
// "px,py" pairs with two decimals, in the series' order.
std::string RenderSvg(const LinePlot& plot);

// The plot of a table attachment `csv` (header row, then numeric rows; empty, "nan" and "inf"
// allowed) as `table` declares it: one series per column its `y` names or, when none exists, its
// `y_fallback` names, against its `x` column; with mark_max a marker where the first series
// peaks (its first maximum; rows stay in file order, x need not be monotone). The y label is the
// series' name when there is one series, else "metric". kNotFound when the x column or every
// y column is missing; kInvalid (naming the line) for a ragged or non-numeric row.
// REQUIRES: table.type == AttachmentType::kTable.
Result<LinePlot> TablePlot(std::string_view csv, const std::string& title, const AttachmentSpec& table);

// Learning curves from a report table whose rows differ in one numeric ablation axis (labels
// "AXIS=VALUE", e.g. "unlabeled=150", or "KEY=VALUE, ..." with the keys of one axis moving together,
// x the first key's value; repetitions already folded into mean ± sd): one plot per
// metric, in the order the columns first name it, one series per evaluator node, mean against
// the axis value with ± one standard deviation as error bars; the axis on a log scale when its
// values are positive and span two decades or more (text sizes 10^4 to 10^7). Empty when the rows
// are not of that form.
struct ReportTable;
std::vector<LinePlot> LearningCurvePlots(const ReportTable& table);

}  // namespace seqflow
