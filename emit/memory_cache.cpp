#include <emit/memory_cache.hpp>

namespace tw::emit {

std::optional<CodeObject> MemoryCache::find(const std::string& digest) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(digest);
  if (it == entries_.end())
    return std::nullopt;
  return it->second;
}

void MemoryCache::insert(const std::string& digest, const CodeObject& code_object) {
  std::lock_guard lock(mutex_);
  entries_.insert_or_assign(digest, code_object);
}

void MemoryCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

std::size_t MemoryCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

MemoryCache& process_memory_cache() {
  static MemoryCache cache;
  return cache;
}

} // namespace tw::emit
