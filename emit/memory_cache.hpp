#pragma once
// The in-memory layer of the compile cache: code objects of this process, by key digest.
#include <emit/code_object.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace tw::emit {

class MemoryCache {
public:
  std::optional<CodeObject> find(const std::string& digest) const;
  void insert(const std::string& digest, const CodeObject& code_object);
  void clear();
  std::size_t size() const;

private:
  mutable std::mutex mutex_;
  std::map<std::string, CodeObject> entries_;
};

// The process-wide memory cache compile() uses.
MemoryCache& process_memory_cache();

} // namespace tw::emit
