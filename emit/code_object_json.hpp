#pragma once
// A code object's description as JSON (the `tilewave aot` manifest entry and
// `tilewave emit --format report`): symbol, backend, arch, resources and kernarg layout.
#include <emit/code_object.hpp>

#include <nlohmann/json.hpp>

namespace tw::emit {

nlohmann::json resources_json(const ResourceReport& r);
nlohmann::json kernarg_json(const CodeObject& co);
// {"symbol", "backend", "arch", "workgroup_size_max", "resources", "kernarg"}
nlohmann::json code_object_json(const CodeObject& co);

} // namespace tw::emit
