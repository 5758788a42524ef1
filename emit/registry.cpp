#include <emit/registry.hpp>
#include <emit/sample_kernels.hpp>

#include <charconv>
#include <mutex>
#include <stdexcept>

namespace tw::emit {

ParamReader::ParamReader(std::string kernel, const std::vector<KernelParamSpec>& specs,
                         const KernelParams& given)
    : kernel_(std::move(kernel)) {
  for (const KernelParamSpec& s : specs)
    values_[s.name] = s.default_value;
  for (const auto& [name, value] : given) {
    if (!values_.count(name)) {
      std::string known;
      for (const KernelParamSpec& s : specs)
        known += (known.empty() ? "" : ", ") + s.name;
      throw std::invalid_argument(
          "kernel '" + kernel_ + "' has no parameter '" + name + "'" +
          (known.empty() ? " (it takes none)" : " (it takes: " + known + ")"));
    }
    values_[name] = value;
  }
}

const std::string& ParamReader::str(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end())
    throw std::logic_error("kernel '" + kernel_ + "' reads undeclared parameter '" + name + "'");
  return it->second;
}

void ParamReader::reject(const std::string& name, const std::string& rule) const {
  throw std::invalid_argument("kernel '" + kernel_ + "' parameter '" + name + "' = '" + str(name) +
                              "': " + rule);
}

std::int64_t ParamReader::integer(const std::string& name) const {
  const std::string& s = str(name);
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    reject(name, "must be an integer");
  return v;
}

std::int64_t ParamReader::integer_in(const std::string& name, std::int64_t lo,
                                     std::int64_t hi) const {
  const std::int64_t v = integer(name);
  if (v < lo || v > hi)
    reject(name, "must be in " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

std::int64_t ParamReader::one_of(const std::string& name,
                                 const std::vector<std::int64_t>& allowed) const {
  const std::int64_t v = integer(name);
  std::string list;
  for (std::int64_t a : allowed) {
    if (a == v)
      return v;
    list += (list.empty() ? "" : ", ") + std::to_string(a);
  }
  reject(name, "must be one of " + list);
}

void KernelRegistry::add(KernelEntry entry) {
  if (entries_.count(entry.name))
    throw std::invalid_argument("kernel '" + entry.name + "' is registered twice");
  std::string name = entry.name;
  entries_.emplace(std::move(name), std::move(entry));
}

bool KernelRegistry::contains(const std::string& name) const {
  return entries_.count(name) > 0;
}

const KernelEntry& KernelRegistry::find(const std::string& name) const {
  auto it = entries_.find(name);
  if (it != entries_.end())
    return it->second;
  std::string known;
  for (const auto& [n, e] : entries_)
    known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown kernel '" + name + "' (known kernels: " + known + ")");
}

std::vector<const KernelEntry*> KernelRegistry::entries() const {
  std::vector<const KernelEntry*> all;
  for (const auto& [n, e] : entries_)
    all.push_back(&e);
  return all;
}

ir::Kernel KernelRegistry::build(const std::string& name, const KernelParams& params) const {
  const KernelEntry& e = find(name);
  return e.build(ParamReader(e.name, e.params, params));
}

void register_builtin_kernels(KernelRegistry& registry) {
  register_sample_kernels(registry); // emit/sample_kernels.cpp: hand-built IR (OpBuilder)
}

KernelRegistry& kernel_registry() {
  static KernelRegistry registry;
  static std::once_flag once;
  std::call_once(once, [] { register_builtin_kernels(registry); });
  return registry;
}

std::pair<std::string, std::string> parse_param_assignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--param '" + text + "' must have the form name=value");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

} // namespace tw::emit
