#include "policy/registry.h"

#include "util/error.h"

namespace schedlab {

PolicyInfo rr_policy_info();
std::vector<PolicyInfo> bfs_policy_infos();
std::vector<PolicyInfo> eevdf_policy_infos();
PolicyInfo cfs_2623_policy_info();
PolicyInfo cfs_2631_policy_info();
PolicyInfo cfs_2632_policy_info();
namespace o1 {
PolicyInfo o1_policy_info();
}
namespace sd {
PolicyInfo sd_policy_info();
}

const std::vector<PolicyInfo>& policy_registry() {
  static const std::vector<PolicyInfo> registry = [] {
    std::vector<PolicyInfo> r = {rr_policy_info(), cfs_2623_policy_info(), cfs_2631_policy_info(),
                                 cfs_2632_policy_info()};
    for (PolicyInfo& info : eevdf_policy_infos()) r.push_back(std::move(info));
    for (PolicyInfo& info : bfs_policy_infos()) r.push_back(std::move(info));
    r.push_back(o1::o1_policy_info());
    r.push_back(sd::sd_policy_info());
    return r;
  }();
  return registry;
}

std::unique_ptr<SchedClass> make_policy(
    const std::string& name, const std::vector<std::pair<std::string, std::string>>& params,
    const std::string& file) {
  for (const PolicyInfo& info : policy_registry()) {
    if (info.name != name) continue;
    ParamValues values(info.params);
    for (const auto& [k, v] : params) values.set(k, v, file, name);
    try {
      return info.make(values);
    } catch (const InputError& e) {  // a policy checks combinations; name the file here
      if (!e.file().empty()) throw;
      throw InputError(file, e.key(), e.reason());
    }
  }
  std::string known;
  for (const PolicyInfo& info : policy_registry()) known += (known.empty() ? "" : ", ") + info.name;
  throw InputError(file, "policy", "unknown policy '" + name + "' (known: " + known + ")");
}

}  // namespace schedlab
