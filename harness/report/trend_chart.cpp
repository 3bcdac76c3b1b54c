#include "harness/report/trend_chart.h"

#include <algorithm>
#include <sstream>

#include "harness/report/report_site.h"

namespace tl {
namespace {

// A round step for the y axis: about four gridlines whatever the counts are.
std::size_t tick_step(std::size_t max) {
  for (std::size_t magnitude = 1;; magnitude *= 10) {
    for (const std::size_t factor : {1, 2, 5}) {
      if (max / (magnitude * factor) <= 5) return magnitude * factor;
    }
  }
}

}  // namespace

std::string render_trend_svg(const TrendChart& chart) {
  constexpr int kWidth = 600, kHeight = 200, kLeft = 44, kRight = 96, kTop = 30, kBottom = 28, kInset = 24;
  const int plot_width = kWidth - kLeft - kRight, plot_height = kHeight - kTop - kBottom;
  std::size_t max = 1;
  for (const TrendSeries& series : chart.series)
    for (const std::size_t value : series.values) max = std::max(max, value);
  const std::size_t step = tick_step(max);
  const std::size_t top = (max + step - 1) / step * step;
  const std::size_t n = chart.x_labels.size();
  // Points stand clear of the y axis, so a value label never sits on it.
  auto x_at = [&](std::size_t i) {
    return kLeft + kInset + (n <= 1 ? (plot_width - 2 * kInset) / 2.0 : (plot_width - 2 * kInset) * double(i) / double(n - 1));
  };
  auto y_at = [&](std::size_t value) { return kTop + plot_height * (1.0 - double(value) / double(top)); };

  std::ostringstream out;
  out.precision(1);
  out << std::fixed;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" width=\""
      << kWidth << "\" height=\"" << kHeight << "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n"
      << "<title>" << html_escape(chart.title) << "</title>\n"
      << "<text x=\"" << kLeft << "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" << html_escape(chart.title) << "</text>\n";
  // Axes and gridlines with their counts.
  for (std::size_t value = 0; value <= top; value += step) {
    out << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_width << "\" y1=\"" << y_at(value) << "\" y2=\"" << y_at(value)
        << "\" stroke=\"" << (value == 0 ? "#555" : "#ddd") << "\"/>"
        << "<text class=\"y-label\" x=\"" << kLeft - 6 << "\" y=\"" << y_at(value) + 4 << "\" text-anchor=\"end\">" << value
        << "</text>\n";
  }
  out << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft << "\" y1=\"" << kTop << "\" y2=\"" << kTop + plot_height
      << "\" stroke=\"#555\"/>\n";
  for (std::size_t i = 0; i < n; ++i) {
    out << "<text class=\"x-label\" x=\"" << x_at(i) << "\" y=\"" << kTop + plot_height + 16 << "\" text-anchor=\"middle\">"
        << html_escape(chart.x_labels[i]) << "</text>\n";
  }
  // One polyline per series, a dot with its value at each point, and the legend on the right.
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const TrendSeries& series = chart.series[s];
    const std::size_t count = std::min(series.values.size(), n);
    out << "<g class=\"series\" data-series=\"" << html_escape(series.name) << "\">\n<polyline fill=\"none\" stroke=\""
        << html_escape(series.colour) << "\" stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < count; ++i) out << (i ? " " : "") << x_at(i) << "," << y_at(series.values[i]);
    out << "\"/>\n";
    for (std::size_t i = 0; i < count; ++i) {
      out << "<circle cx=\"" << x_at(i) << "\" cy=\"" << y_at(series.values[i]) << "\" r=\"3\" fill=\""
          << html_escape(series.colour) << "\"><title>" << html_escape(series.name) << ": " << series.values[i]
          << "</title></circle>"
          << "<text x=\"" << x_at(i) << "\" y=\"" << y_at(series.values[i]) - 6 << "\" text-anchor=\"middle\" fill=\""
          << html_escape(series.colour) << "\">" << series.values[i] << "</text>\n";
    }
    const int legend_y = kTop + 14 + 18 * static_cast<int>(s);
    out << "<line x1=\"" << kLeft + plot_width + 16 << "\" x2=\"" << kLeft + plot_width + 36 << "\" y1=\"" << legend_y - 4
        << "\" y2=\"" << legend_y - 4 << "\" stroke=\"" << html_escape(series.colour) << "\" stroke-width=\"2\"/>"
        << "<text x=\"" << kLeft + plot_width + 42 << "\" y=\"" << legend_y << "\">" << html_escape(series.name)
        << "</text>\n</g>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace tl
