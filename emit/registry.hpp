#pragma once
// The kernels `tilewave emit` / `tilewave aot` and bench/compile know by name: each entry
// builds an ir::Kernel from string parameters (`--param k=v`). Registration is explicit
// (register_builtin_kernels here, and the tool registers the DSL samples and the library):
// self-registering static objects would be dropped by the static libraries.
#include <dsl/ir/kernel.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tw::emit {

using KernelParams = std::map<std::string, std::string>;

struct KernelParamSpec {
  std::string name;
  std::string default_value;
  std::string help; // one line, with the allowed values
};

// Typed access to a kernel's parameters: defaults filled in, unknown names rejected.
class ParamReader {
public:
  ParamReader(std::string kernel, const std::vector<KernelParamSpec>& specs,
              const KernelParams& given);
  const std::string& str(const std::string& name) const;
  // Throws std::invalid_argument naming the kernel, the parameter and the rule.
  std::int64_t integer(const std::string& name) const;
  std::int64_t integer_in(const std::string& name, std::int64_t lo, std::int64_t hi) const;
  std::int64_t one_of(const std::string& name, const std::vector<std::int64_t>& allowed) const;
  // The parameters after defaults: what a manifest records.
  const KernelParams& values() const { return values_; }
  [[noreturn]] void reject(const std::string& name, const std::string& rule) const;

private:
  std::string kernel_;
  KernelParams values_;
};

struct KernelEntry {
  std::string name;
  std::string description;
  std::vector<KernelParamSpec> params;
  std::function<ir::Kernel(const ParamReader&)> build;
  // The configurations `tilewave aot --all` compiles; empty means one, all defaults.
  std::vector<KernelParams> shipped_configs;
};

class KernelRegistry {
public:
  // Throws std::invalid_argument when the name is taken.
  void add(KernelEntry entry);
  // Throws std::invalid_argument listing the known kernels when `name` is not one of them.
  const KernelEntry& find(const std::string& name) const;
  bool contains(const std::string& name) const;
  std::vector<const KernelEntry*> entries() const; // sorted by name
  // find(name) + ParamReader + build.
  ir::Kernel build(const std::string& name, const KernelParams& params = {}) const;

private:
  std::map<std::string, KernelEntry> entries_;
};

// The process-wide registry, filled by register_builtin_kernels on first use.
KernelRegistry& kernel_registry();

// Registers the emitter's own sample IR kernels (ir_*). Providers above emit/ (the DSL
// samples, the kernel library) register from the tool: see tools/tilewave/*_kernels.cpp.
void register_builtin_kernels(KernelRegistry& registry);

// "k=v" -> {k, v}; throws std::invalid_argument when there is no '=' or the key is empty.
std::pair<std::string, std::string> parse_param_assignment(const std::string& text);

} // namespace tw::emit
