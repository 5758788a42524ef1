#include <emit/code_object_json.hpp>

namespace tw::emit {

nlohmann::json resources_json(const ResourceReport& r) {
  return {{"vgprs", r.vgprs},
          {"sgprs", r.sgprs},
          {"lds_bytes", r.lds_bytes},
          {"scratch_bytes", r.scratch_bytes},
          {"workgroup_size", r.workgroup_size},
          {"waves_per_simd", r.waves_per_simd},
          {"workgroups_per_wgp", r.workgroups_per_wgp},
          {"occupancy_limiter", std::string(r.occupancy_limiter)},
          {"vgpr_spills", r.vgpr_spills},
          {"sgpr_spills", r.sgpr_spills}};
}

nlohmann::json kernarg_json(const CodeObject& co) {
  nlohmann::json args = nlohmann::json::array();
  for (const KernargEntry& a : co.args) {
    nlohmann::json e = {
        {"name", a.name}, {"offset", a.offset}, {"size", a.size}, {"value_kind", a.value_kind}};
    if (!a.address_space.empty())
      e["address_space"] = a.address_space;
    args.push_back(std::move(e));
  }
  return {{"size", co.kernarg_size}, {"args", std::move(args)}};
}

nlohmann::json code_object_json(const CodeObject& co) {
  return {{"symbol", co.kernel_name},
          {"backend", std::string(backend_name(co.backend))},
          {"arch", std::string(arch_name(co.arch))},
          {"workgroup_size_max", co.max_flat_workgroup_size},
          {"resources", resources_json(co.resources)},
          {"kernarg", kernarg_json(co)}};
}

} // namespace tw::emit
