#include "experiment/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "util/error.h"
#include "util/input_file.h"

namespace schedlab {

int ResultTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (char c : line) {
    if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else if (c != '\r') {
      cell.push_back(c);
    }
  }
  cells.push_back(cell);
  return cells;
}

double to_double(const std::string& s, bool* ok) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  *ok = ec == std::errc() && p == s.data() + s.size() && !s.empty();
  return v;
}

}  // namespace

ResultTable parse_results_csv(const std::string& text, const std::string& file) {
  ResultTable t;
  std::istringstream in(text);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    std::vector<std::string> cells = split_csv_line(line);
    if (t.columns.empty()) {
      t.columns = std::move(cells);
      continue;
    }
    if (cells.size() != t.columns.size())
      throw InputError(
          file, fmt::format("line {}", n),
          fmt::format("{} cells where the header has {}", cells.size(), t.columns.size()));
    t.rows.push_back(std::move(cells));
  }
  if (t.columns.empty()) throw InputError(file, "", "no header line");
  return t;
}

ResultTable read_results_csv(const std::string& path) {
  return parse_results_csv(read_input_file(path), path);
}

std::string results_csv(const ResultTable& t) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) out.push_back(',');
      out.append(cells[i]);
    }
    out.push_back('\n');
  };
  line(t.columns);
  for (const auto& r : t.rows) line(r);
  return out;
}

ResultTable merge_results(const std::vector<std::pair<std::string, ResultTable>>& parts) {
  if (parts.empty()) throw InputError("", "merge", "no input files");
  ResultTable out;
  out.columns = parts.front().second.columns;
  std::vector<std::size_t> key_cols;
  for (std::size_t i = 0; i < out.columns.size(); ++i)
    if (out.columns[i].rfind("wall", 0) != 0) key_cols.push_back(i);
  auto key = [&](const std::vector<std::string>& r) {
    std::vector<std::string> k;
    for (std::size_t i : key_cols) k.push_back(r[i]);
    return k;
  };
  std::set<std::vector<std::string>> seen;
  for (const auto& [file, t] : parts) {
    if (t.columns != out.columns)
      throw InputError(file, "header", "its columns differ from " + parts.front().first + "'s");
    for (const auto& r : t.rows)
      if (seen.insert(key(r)).second) out.rows.push_back(r);
  }
  std::sort(out.rows.begin(), out.rows.end(),
            [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return out;
}

Stats stats_of(std::vector<double> values) {
  Stats s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  const std::size_t mid = values.size() / 2;
  s.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  return s;
}

const Stats* Aggregate::cell(const std::string& point, const std::string& policy) const {
  const auto it = cells.find({point, policy});
  return it == cells.end() ? nullptr : &it->second;
}

Aggregate aggregate_results(const ResultTable& t, const std::vector<std::string>& axis_columns,
                            const std::string& metric) {
  Aggregate a;
  a.metric = metric;
  a.axis_columns = axis_columns;
  const int mcol = t.column(metric), pcol = t.column("policy");
  if (mcol < 0) {
    std::string known;
    for (const std::string& c : t.columns)
      if (c != "scenario" && c != "policy" && c != "repeat" && c != "seed")
        known += (known.empty() ? "" : ", ") + c;
    throw InputError("", "--metric " + metric, "unknown metric (known: " + known + ")");
  }
  if (pcol < 0) throw InputError("", "policy", "the results have no policy column");
  std::vector<int> acols;
  for (const std::string& c : axis_columns) {
    const int i = t.column(c);
    if (i < 0) throw InputError("", c, "the results have no such column");
    acols.push_back(i);
  }
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  for (const auto& r : t.rows) {
    std::string point;
    for (int i : acols) point += (point.empty() ? "" : "/") + r[i];
    const std::string& policy = r[pcol];
    if (std::find(a.points.begin(), a.points.end(), point) == a.points.end())
      a.points.push_back(point);
    if (std::find(a.policies.begin(), a.policies.end(), policy) == a.policies.end())
      a.policies.push_back(policy);
    bool ok = false;
    const double v = to_double(r[mcol], &ok);
    if (ok) values[{point, policy}].push_back(v);
  }
  for (auto& [k, v] : values) a.cells[k] = stats_of(std::move(v));
  return a;
}

Published read_published(const std::string& path) {
  const ResultTable t = read_results_csv(path);
  Published p;
  for (const auto& r : t.rows)
    for (std::size_t c = 1; c < t.columns.size(); ++c) {
      bool ok = false;
      const double v = to_double(r[c], &ok);
      if (!ok) throw InputError(path, t.columns[c], "'" + r[c] + "' is not a number");
      p[{r[0], t.columns[c]}] = v;
    }
  return p;
}

std::string format_aggregate_table(const Aggregate& a, const Published* published) {
  std::string axis = a.axis_columns.empty() ? "point" : a.axis_columns.front();
  for (std::size_t i = 1; i < a.axis_columns.size(); ++i) axis += "/" + a.axis_columns[i];
  std::string out = fmt::format("{} (median [min-max])\n{:<12}", a.metric, axis);
  for (const std::string& p : a.policies) {
    out += fmt::format(" {:>28}", p);
    if (published) out += fmt::format(" {:>10} {:>6}", "published", "ratio");
  }
  out += "\n";
  for (const std::string& point : a.points) {
    out += fmt::format("{:<12}", point);
    for (const std::string& p : a.policies) {
      const Stats* s = a.cell(point, p);
      out += s ? fmt::format(" {:>10.2f} [{:>7.2f}-{:>7.2f}]", s->median, s->min, s->max)
               : fmt::format(" {:>28}", "-");
      if (published) {
        const auto it = published->find({point, p});
        if (it != published->end() && s && it->second != 0)
          out += fmt::format(" {:>10.2f} {:>6.2f}", it->second, s->median / it->second);
        else
          out += fmt::format(" {:>10} {:>6}", "-", "-");
      }
    }
    out += "\n";
  }
  return out;
}

std::string aggregate_table_html(const Aggregate& a, const Published* published) {
  std::string axis = a.axis_columns.empty() ? "point" : a.axis_columns.front();
  std::string out = "<table><thead><tr><th>" + axis + "</th>";
  for (const std::string& p : a.policies) {
    out += "<th>" + p + "<br><small>median [min–max]</small></th>";
    if (published) out += "<th>published</th><th>ratio</th>";
  }
  out += "</tr></thead><tbody>\n";
  for (const std::string& point : a.points) {
    out += "<tr><td>" + point + "</td>";
    for (const std::string& p : a.policies) {
      const Stats* s = a.cell(point, p);
      out += s ? fmt::format("<td>{:.2f} [{:.2f}–{:.2f}]</td>", s->median, s->min, s->max)
               : std::string("<td>–</td>");
      if (published) {
        const auto it = published->find({point, p});
        if (it != published->end() && s && it->second != 0)
          out += fmt::format("<td>{:.2f}</td><td>{:.2f}</td>", it->second, s->median / it->second);
        else
          out += "<td>–</td><td>–</td>";
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

}  // namespace schedlab
