// lld's ELF driver as a library (see lld_in_process.hpp).
#include <emit/llvm/lld_in_process.hpp>
#include <emit/subprocess.hpp>

#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>
#include <stdexcept>
#include <string>

LLD_HAS_DRIVER(elf)

namespace tw::emit {

std::vector<std::uint8_t> link_code_object_in_process(std::span<const std::uint8_t> object) {
  // lld keeps driver state in globals between the start and the end of one link.
  static std::mutex mutex;
  TempDir dir("tilewave-lld");
  const std::string obj = dir.file("kernel.o"), hsaco = dir.file("kernel.hsaco");
  write_file(obj, object.data(), object.size());
  const char* args[] = {"ld.lld", "-shared", "--no-undefined", obj.c_str(), "-o", hsaco.c_str()};
  std::string out, err;
  llvm::raw_string_ostream out_stream(out), err_stream(err);
  lld::Result r{};
  {
    std::lock_guard lock(mutex);
    r = lld::lldMain(args, out_stream, err_stream, {{lld::Gnu, &lld::elf::link}});
  }
  if (r.retCode != 0)
    throw std::runtime_error("lld (in process) linking a code object failed (exit status " +
                             std::to_string(r.retCode) + ")\n" + out + err);
  if (!r.canRunAgain)
    throw std::runtime_error("lld (in process) cannot be run again after: " + err);
  return read_binary_file(hsaco);
}

} // namespace tw::emit
