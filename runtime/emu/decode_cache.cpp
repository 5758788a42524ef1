// The process-wide decode cache: FNV-1a hash of the bytes and the cpu as the key, the bytes
// kept to confirm a hit, the program stored with pc relative to the start of .text.
#include <runtime/emu/decode_cache.hpp>

#include <algorithm>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tw::emu {
namespace {

struct Entry {
  std::string cpu;
  std::vector<uint8_t> bytes;
  std::vector<DecodedInstr> program; // pc relative to the start of the text
};

uint64_t fnv1a(const uint8_t* p, size_t n, std::string_view cpu) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint8_t b) { h = (h ^ b) * 0x100000001b3ull; };
  for (size_t i = 0; i < n; ++i)
    mix(p[i]);
  for (char c : cpu)
    mix(uint8_t(c));
  return h;
}

void move_pc(std::vector<DecodedInstr>& program, int64_t delta) {
  for (auto& d : program) {
    d.pc = uint64_t(int64_t(d.pc) + delta);
    for (auto& half : d.vopd)
      half.pc = uint64_t(int64_t(half.pc) + delta);
  }
}

// Bounded, so a process that loads many different code objects does not grow without limit.
constexpr size_t kMaxEntries = 256;

struct Cache {
  std::mutex mutex;
  std::unordered_multimap<uint64_t, Entry> entries;
  std::deque<uint64_t> order; // insertion order of the keys, for eviction
  size_t misses = 0;
};

Cache& cache() {
  static Cache c;
  return c;
}

} // namespace

std::vector<DecodedInstr> decode_text_cached(const uint8_t* bytes, size_t size,
                                             uint64_t text_address, std::string_view cpu) {
  Cache& c = cache();
  const uint64_t key = fnv1a(bytes, size, cpu);
  {
    std::lock_guard lock(c.mutex);
    auto [begin, end] = c.entries.equal_range(key);
    for (auto it = begin; it != end; ++it) {
      const Entry& e = it->second;
      if (e.cpu == cpu && e.bytes.size() == size &&
          std::equal(e.bytes.begin(), e.bytes.end(), bytes)) {
        std::vector<DecodedInstr> program = e.program;
        move_pc(program, int64_t(text_address));
        return program;
      }
    }
  }
  std::vector<DecodedInstr> program = decode_text(bytes, size, text_address, cpu);
  Entry e{std::string(cpu), std::vector<uint8_t>(bytes, bytes + size), program};
  move_pc(e.program, -int64_t(text_address));
  std::lock_guard lock(c.mutex);
  ++c.misses;
  if (c.order.size() == kMaxEntries) {
    c.entries.erase(c.entries.find(c.order.front()));
    c.order.pop_front();
  }
  c.entries.emplace(key, std::move(e));
  c.order.push_back(key);
  return program;
}

size_t decode_cache_misses() {
  std::lock_guard lock(cache().mutex);
  return cache().misses;
}

} // namespace tw::emu
