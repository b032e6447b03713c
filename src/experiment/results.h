// Sweep results as a table (the CSV a sweep writes), merging of shards, and aggregation
// per point and scheduler: median with min and max, the seed posts' methodology.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace schedlab {

struct ResultTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  // The index of a column, or -1.
  int column(const std::string& name) const;
};

ResultTable parse_results_csv(const std::string& text, const std::string& file);
ResultTable read_results_csv(const std::string& path);
std::string results_csv(const ResultTable& t);

// Joins shards: same columns required; rows sorted by everything but wall-clock columns,
// duplicates (the same run twice) kept once.
ResultTable merge_results(const std::vector<std::pair<std::string, ResultTable>>& parts);

struct Stats {
  double median = 0, min = 0, max = 0;
  int n = 0;
};
Stats stats_of(std::vector<double> values);

struct Aggregate {
  std::string metric;
  std::vector<std::string> axis_columns;
  std::vector<std::string> points;    // axis values joined with "/", in first-seen order
  std::vector<std::string> policies;  // in first-seen order
  std::map<std::pair<std::string, std::string>, Stats> cells;  // (point, policy)
  const Stats* cell(const std::string& point, const std::string& policy) const;
};

// Groups rows by the axis columns and the policy; throws InputError naming the metric if
// it is not a column.
Aggregate aggregate_results(const ResultTable& t, const std::vector<std::string>& axis_columns,
                            const std::string& metric);

// Published figures to show beside the simulated ones: CSV with the axis in the first
// column and one column per policy label.
using Published = std::map<std::pair<std::string, std::string>, double>;  // (point, policy)
Published read_published(const std::string& path);

// The seed posts' layout: rows = the varied axis, columns = schedulers (median, and the
// published figure with the ratio when given).
std::string format_aggregate_table(const Aggregate& a, const Published* published = nullptr);
std::string aggregate_table_html(const Aggregate& a, const Published* published = nullptr);

}  // namespace schedlab
