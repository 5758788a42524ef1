// The dispatch table: built once from the core and the vector-ALU registrations.
#include <runtime/emu/handlers.hpp>

#include <algorithm>

namespace tw::emu {

void HandlerTable::add(std::string mnemonic, Handler h) {
  if (!h)
    throw std::logic_error("emulator: null handler for '" + mnemonic + "'");
  auto [it, inserted] = table_.emplace(mnemonic, h);
  if (!inserted)
    throw std::logic_error("emulator: two handlers registered for '" + mnemonic + "'");
}

void HandlerTable::add_all(std::initializer_list<std::string_view> mnemonics, Handler h) {
  for (auto m : mnemonics)
    add(std::string(m), h);
}

Handler HandlerTable::find(std::string_view mnemonic) const {
  auto it = table_.find(std::string(mnemonic));
  return it == table_.end() ? nullptr : it->second;
}

std::vector<std::string> HandlerTable::mnemonics() const {
  std::vector<std::string> r;
  r.reserve(table_.size());
  for (const auto& [k, v] : table_)
    r.push_back(k);
  std::sort(r.begin(), r.end());
  return r;
}

const HandlerTable& HandlerTable::instance() {
  static const HandlerTable table = [] {
    HandlerTable t;
    register_core_handlers(t);
    register_valu_handlers(t);
    return t;
  }();
  return table;
}

} // namespace tw::emu
