// A small line chart as standalone SVG text: one x position per scorecard (oldest first), one
// polyline per series. The report draws it itself, so the page needs no charting library and the
// picture is the same in every browser.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tl {

struct TrendSeries {
  std::string name;                 // shown in the legend, and as the polyline's data-series
  std::string colour;               // an SVG colour
  std::vector<std::size_t> values;  // one per x position
};

struct TrendChart {
  std::string title;
  std::vector<std::string> x_labels;  // one per x position
  std::vector<TrendSeries> series;
};

// The chart as an <svg> element (with xmlns, so it is also a valid .svg file). Text is escaped.
// Series shorter or longer than x_labels are drawn over the positions they have.
std::string render_trend_svg(const TrendChart& chart);

}  // namespace tl
