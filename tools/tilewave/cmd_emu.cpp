// `tilewave emu CODE_OBJECT --kernel NAME --grid X,Y,Z --block X,Y,Z [--lds BYTES]
//  --arg buf:in=FILE.npy --arg buf:out=FILE.npy:SHAPE:DTYPE --arg i32=5 --arg f32=0.5 ...
//  [--arg bytes=HEX | file=ARGS.bin | ptr=0 | struct=q:ptr,n:i32=5 --buffer q:in=Q.npy]`
// runs any gfx12 code object on the emulator, writes the output buffers as .npy and prints
// the launch statistics. --trace prints every instruction of one wave with what it wrote.
// --model gfx1201|gfx1200 also prints the modeled time on that GPU (docs/timing.md);
// --model-only runs just the sampled workgroups (full-size shapes in seconds, no outputs).
#include "tilewave/command.hpp"
#include "tilewave/emu_args.hpp"

#include <runtime/emu/handlers.hpp>
#include <runtime/emu/text_padding.hpp>
#include <runtime/emu_device.hpp>
#include <tools/npy/npy.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tw::tool {
namespace {

// A grid larger than this runs for hours on the emulator; --max-workgroups raises it.
constexpr int64_t kDefaultMaxWorkgroups = int64_t(1) << 20;
// One buf:out is zero-filled on the host: a typo in its shape must not ask for terabytes.
constexpr size_t kMaxOutputBufferBytes = size_t(16) << 30;

std::array<uint32_t, 3> parse_dim3(const std::string& text, const char* option,
                                   bool allow_zero = false) {
  const uint32_t missing = allow_zero ? 0 : 1; // ids default to 0, sizes to 1
  std::array<uint32_t, 3> d{missing, missing, missing};
  size_t i = 0, k = 0;
  while (k < 3 && i <= text.size()) {
    size_t j = text.find(',', i);
    std::string part = text.substr(i, j == std::string::npos ? std::string::npos : j - i);
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size() || (v == 0 && !allow_zero))
      throw std::invalid_argument(fmt::format("emu: {} '{}' must be X[,Y[,Z]] of {} integers",
                                              option, text,
                                              allow_zero ? "non-negative" : "positive"));
    d[k++] = v;
    if (j == std::string::npos)
      return d;
    i = j + 1;
  }
  throw std::invalid_argument(fmt::format("emu: {} '{}' has more than 3 dimensions", option, text));
}

// One --arg: a scalar (bytes to place) or a buffer (file in, file out, or both).
struct ArgSpec {
  std::string text;
  std::vector<uint8_t> scalar; // scalar bytes
  bool is_buffer = false;
  std::string in_file, out_file;
  npy::Array array; // buffer contents (input) or shape/dtype (output)
  runtime::DevicePtr ptr = 0;
  bool null_pointer = false;           // ptr=0
  std::optional<StructSpec> structure; // struct=...: `scalar` is packed once buffers exist
  bool is_pointer() const { return is_buffer || null_pointer; }
};

template <class T>
std::vector<uint8_t> bytes_of(T v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

template <class T>
T parse_number(const std::string& s, const std::string& arg) {
  const std::optional<T> v = parse_cli_number<T>(s);
  if (!v)
    throw std::invalid_argument(fmt::format("emu: --arg {}: '{}' is not a valid value", arg, s));
  return *v;
}

std::vector<size_t> parse_shape(const std::string& s, const std::string& arg) {
  std::vector<size_t> shape;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find_first_of("x,", i);
    shape.push_back(
        parse_number<size_t>(s.substr(i, j == std::string::npos ? std::string::npos : j - i), arg));
    if (j == std::string::npos)
      break;
    i = j + 1;
  }
  return shape;
}

ArgSpec parse_arg(const std::string& text) {
  ArgSpec a;
  a.text = text;
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw std::invalid_argument(
        fmt::format("emu: --arg '{}' must be KIND=VALUE (buf:in=F.npy, buf:out=F.npy:SHAPE:DTYPE, "
                    "buf:inout=F.npy, i32=, u32=, i64=, u64=, f32=, f64=, bytes=HEX, "
                    "file=ARGS.bin, ptr=0, struct=NAME:TYPE[=VALUE],...)",
                    text));
  const std::string kind = text.substr(0, eq), value = text.substr(eq + 1);
  if (kind == "i32")
    a.scalar = bytes_of(parse_number<int32_t>(value, text));
  else if (kind == "u32")
    a.scalar = bytes_of(parse_number<uint32_t>(value, text));
  else if (kind == "i64")
    a.scalar = bytes_of(parse_number<int64_t>(value, text));
  else if (kind == "u64")
    a.scalar = bytes_of(parse_number<uint64_t>(value, text));
  else if (kind == "f32")
    a.scalar = bytes_of(parse_number<float>(value, text));
  else if (kind == "f64")
    a.scalar = bytes_of(parse_number<double>(value, text));
  else if (kind == "buf:in" || kind == "buf:inout") {
    a.is_buffer = true;
    a.in_file = value;
    a.array = npy::read(value);
    if (kind == "buf:inout")
      a.out_file = value;
  } else if (kind == "buf:out") {
    a.is_buffer = true;
    const auto c1 = value.find(':');
    const auto c2 = c1 == std::string::npos ? std::string::npos : value.find(':', c1 + 1);
    if (c2 == std::string::npos)
      throw std::invalid_argument(fmt::format(
          "emu: --arg '{}': an output buffer is buf:out=FILE.npy:SHAPE:DTYPE (e.g. o.npy:64x4:f32)",
          text));
    a.out_file = value.substr(0, c1);
    a.array.shape = parse_shape(value.substr(c1 + 1, c2 - c1 - 1), text);
    a.array.dtype = npy::dtype_from_name(value.substr(c2 + 1));
    size_t bytes = 0;
    try {
      bytes = a.array.byte_size();
    } catch (const npy::Error& e) {
      throw std::invalid_argument(fmt::format("emu: --arg '{}': {}", text, e.what()));
    }
    if (bytes > kMaxOutputBufferBytes)
      throw std::invalid_argument(fmt::format("emu: --arg '{}': an output of {} bytes exceeds the "
                                              "{} GiB limit of one buffer",
                                              text, bytes, kMaxOutputBufferBytes >> 30));
    a.array.data.assign(bytes, 0);
  } else if (auto raw = parse_raw_arg(kind, value, text)) {
    a.scalar = std::move(*raw);
  } else if (kind == "ptr") {
    check_null_pointer_arg(value, text);
    a.null_pointer = true;
    a.scalar = bytes_of<uint64_t>(0);
  } else if (kind == "struct") {
    a.structure = parse_struct_arg(value, text);
  } else {
    throw std::invalid_argument(fmt::format(
        "emu: --arg '{}': kind '{}' is not one of buf:in, buf:out, buf:inout, i32, u32, i64, "
        "u64, f32, f64, bytes, file, ptr, struct",
        text, kind));
  }
  return a;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error("emu: cannot open code object '" + path + "'");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Runs `load` on the file's bytes; a load error becomes one sentence naming the file.
template <class Load>
auto load_named(const std::string& path, Load&& load) {
  const std::vector<uint8_t> bytes = read_file(path);
  try {
    return load(bytes);
  } catch (const std::exception& e) {
    std::string_view what = e.what();
    if (const auto at = what.find("code object:"); at != std::string_view::npos)
      what.remove_prefix(at); // drop the "Device::load_code_object: " of the device layer
    throw std::runtime_error(fmt::format("emu: '{}': {}", path, what));
  }
}

// Places the arguments at the offsets the kernel's metadata gives (explicit arguments in
// order); checks count and sizes.
std::vector<uint8_t> pack_args(const emu::KernelInfo& k, const std::vector<ArgSpec>& args) {
  std::vector<const emu::KernelArgMeta*> expl;
  for (const auto& m : k.args)
    if (m.value_kind.rfind("hidden_", 0) != 0)
      expl.push_back(&m);
  if (!k.args.empty() && expl.size() != args.size())
    throw std::invalid_argument(fmt::format("emu: kernel {} takes {} explicit arguments, {} --arg "
                                            "given",
                                            k.name, expl.size(), args.size()));
  std::vector<uint8_t> bytes;
  size_t natural = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    std::vector<uint8_t> b = args[i].is_buffer ? bytes_of<uint64_t>(args[i].ptr) : args[i].scalar;
    size_t off;
    if (i < expl.size()) {
      const emu::KernelArgMeta& m = *expl[i];
      // clang leaves the name out of the metadata of some arguments (by-value structs at -O3).
      const std::string label = m.name.empty() ? "unnamed" : "'" + m.name + "'";
      if (m.size != b.size())
        throw std::invalid_argument(
            fmt::format("emu: --arg {} is {} bytes but argument {} of {} ({}, {}) is {} bytes",
                        args[i].text, b.size(), i, k.name, label, m.value_kind, m.size));
      if (args[i].is_pointer() != (m.value_kind == "global_buffer"))
        throw std::invalid_argument(fmt::format(
            "emu: --arg {}: argument {} of {} ({}) is {}", args[i].text, i, k.name, label,
            m.value_kind == "global_buffer" ? "a buffer (use buf:... or ptr=0)"
                                            : "a value (use i32=..., bytes=..., struct=...)"));
      off = m.offset;
    } else {
      off = (natural + b.size() - 1) / b.size() * b.size();
    }
    natural = off + b.size();
    if (bytes.size() < natural)
      bytes.resize(natural, 0);
    std::memcpy(bytes.data() + off, b.data(), b.size());
  }
  return bytes;
}

// --buffer NAME:...: buffers that struct= pointer fields name. Each must be named by some
// struct field (an unused one is a typo), and names are unique.
// Two outputs written to one file would silently overwrite each other: refused before the launch.
void check_distinct_outputs(const std::vector<ArgSpec>& args,
                            const std::map<std::string, ArgSpec>& named) {
  std::map<std::string, std::string> seen; // output file -> the argument that writes it
  auto check = [&](const ArgSpec& a) {
    if (a.out_file.empty())
      return;
    const auto [it, fresh] = seen.emplace(a.out_file, a.text);
    if (!fresh)
      throw std::invalid_argument(fmt::format("emu: --arg '{}' and '{}' both write {}; give each "
                                              "output its own file",
                                              it->second, a.text, a.out_file));
  };
  for (const ArgSpec& a : args)
    check(a);
  for (const auto& [name, a] : named)
    check(a);
}

std::map<std::string, ArgSpec> parse_named_buffers(const std::vector<std::string>& texts,
                                                   const std::vector<ArgSpec>& args) {
  std::map<std::string, ArgSpec> named;
  for (const std::string& text : texts) {
    auto [name, arg_text] = split_named_buffer(text);
    ArgSpec b = parse_arg(arg_text);
    if (!b.is_buffer)
      throw std::invalid_argument(fmt::format(
          "emu: --buffer '{}' must be NAME:in=..., NAME:out=... or NAME:inout=...", text));
    b.text = text;
    if (!named.emplace(name, std::move(b)).second)
      throw std::invalid_argument(fmt::format("emu: --buffer name '{}' is given twice", name));
  }
  for (const auto& [name, b] : named) {
    bool used = false;
    for (const ArgSpec& a : args)
      if (a.structure)
        for (const StructField& f : a.structure->fields)
          used = used || (f.name == name && f.type == "ptr" && !f.value);
    if (!used)
      throw std::invalid_argument(fmt::format(
          "emu: --buffer {} is named by no struct= pointer field (write {}:ptr in a struct=)",
          b.text, name));
  }
  return named;
}

// One progress line of a long launch (stderr: standard output may be the statistics).
void print_progress(uint64_t done, uint64_t total, double seconds) {
  const double rate = done / std::max(seconds, 1e-9);
  std::cerr << fmt::format("tilewave emu: {} of {} workgroups ({:.1f}%) in {:.0f} s, about {:.0f} "
                           "s left (--time-limit bounds the run)\n",
                           done, total, 100.0 * double(done) / double(total), seconds,
                           double(total - done) / std::max(rate, 1e-9));
}

// --check: decode only; print the kernels and every mnemonic without a handler.
int check_code_object(const std::vector<uint8_t>& elf) {
  const auto co = emu::CodeObject::load(elf);
  const emu::HandlerTable& table = emu::HandlerTable::instance();
  std::map<std::string, int> missing;
  size_t count = 0, padding_dwords = 0;
  const auto& program = co->program();
  // The loaded image is host memory: an instruction's bytes are at its pc.
  const std::vector<bool> padding =
      program.empty()
          ? std::vector<bool>{}
          : emu::padding_instructions(program, reinterpret_cast<const uint8_t*>(program.front().pc),
                                      program.front().pc);
  for (size_t i = 0; i < program.size(); ++i) {
    const auto& d = program[i];
    if (padding[i]) {
      ++padding_dwords;
      continue;
    }
    ++count;
    if (d.mnemonic == "s_code_end")
      continue;
    if (!table.find(d.mnemonic))
      ++missing[d.mnemonic];
    for (const auto& half : d.vopd)
      if (!table.find(half.mnemonic))
        ++missing["v_dual_" + half.mnemonic.substr(2)];
  }
  std::cout << fmt::format("{}: code object v{}, {} instructions{}\n", co->target(),
                           co->code_object_version(), count,
                           padding_dwords ? fmt::format(" ({} zero dwords of padding between "
                                                        "functions)",
                                                        padding_dwords)
                                          : "");
  for (const auto& name : co->kernel_names()) {
    const auto& k = co->kernel(name);
    std::cout << fmt::format("kernel {}: LDS {} bytes, scratch {} bytes/lane, kernarg {} bytes\n",
                             name, k.group_segment_size, k.private_segment_size, k.kernarg_size);
  }
  if (missing.empty())
    std::cout << "every instruction has an emulator handler\n";
  for (const auto& [m, n] : missing)
    std::cout << fmt::format("unimplemented: {} ({}x)\n", m, n);
  return 0;
}

Command emu_command{
    "emu", "run a gfx12 code object on the emulator (.npy buffers in and out, statistics)",
    [](CLI::App& sub) -> Command::Action {
      struct Options {
        std::string code_object, kernel, grid = "1", block = "32", trace_wave, model;
        int model_sample = 0; // TimingOptions::sample (0: one per simulated workgroup)
        bool model_sample_given = false;
        bool model_only = false;
        double model_flops = 0, model_bytes = 0, progress = 2, time_limit = 0;
        int64_t lds = 0, threads = 0, max_instructions = 0, max_workgroups = kDefaultMaxWorkgroups;
        std::vector<std::string> args, buffers;
        bool trace = false, no_memcheck = false, json = false, check = false;
      };
      auto o = std::make_shared<Options>();
      sub.add_option("code_object", o->code_object, "gfx12 HSA code object (.hsaco / .co ELF)")
          ->required();
      sub.add_option("--kernel", o->kernel, "kernel name (its symbol)");
      sub.add_flag("--check", o->check,
                   "only decode: list the kernels and the instructions the emulator lacks");
      sub.add_option("--grid", o->grid, "workgroups X[,Y[,Z]]");
      sub.add_option("--block", o->block, "work-items per workgroup X[,Y[,Z]]");
      sub.add_option("--lds", o->lds, "dynamic LDS bytes (beyond the kernel's static LDS)")
          ->check(CLI::Range(int64_t(0), int64_t(65536)));
      sub.add_option("--arg", o->args,
                     "kernel arguments in order: buf:in=F.npy, buf:out=F.npy:SHAPE:DTYPE, "
                     "buf:inout=F.npy, i32=N, u32=N, i64=N, u64=N, f32=X, f64=X, bytes=HEX, "
                     "file=ARGS.bin, ptr=0, struct=NAME:TYPE[=VALUE],... (docs/emulator.md)");
      sub.add_option("--buffer", o->buffers,
                     "a named buffer for struct= pointer fields: NAME:in=F.npy, "
                     "NAME:out=F.npy:SHAPE:DTYPE, NAME:inout=F.npy");
      sub.add_flag("--trace", o->trace, "print each instruction of one wave and what it wrote");
      sub.add_option("--trace-wave", o->trace_wave,
                     "which wave to trace: WGX,WGY,WGZ:WAVE (default 0,0,0:0)");
      sub.add_flag("--no-memcheck", o->no_memcheck, "disable memcheck (also TILEWAVE_EMU_CHECK=0)");
      sub.add_option("--threads", o->threads, "host threads for workgroups (default: all cores)")
          ->check(CLI::Range(int64_t(0), int64_t(1024)));
      sub.add_flag("--json", o->json, "print the statistics as JSON");
      sub.add_option("--max-instructions", o->max_instructions,
                     "fail when one wave executes more instructions (default 200000000)")
          ->check(CLI::Range(int64_t(1), int64_t(1) << 40));
      sub.add_option(
             "--max-workgroups", o->max_workgroups,
             fmt::format("refuse a grid of more workgroups (default {})", kDefaultMaxWorkgroups))
          ->check(CLI::Range(int64_t(1), int64_t(1) << 48));
      sub.add_option("--progress", o->progress,
                     "seconds between progress lines on stderr for a long launch (0: none)")
          ->check(CLI::Range(0.0, 86400.0))
          ->capture_default_str();
      sub.add_option("--time-limit", o->time_limit,
                     "stop a launch still running after SECONDS with an error (0: no limit)")
          ->check(CLI::Range(0.0, 1e9));
      sub.add_option(
          "--model", o->model,
          "also model the launch's time on gfx1201 (RX 9070 XT) or gfx1200 (RX 9060 XT)");
      sub.add_option_function<int>(
          "--model-sample",
          [o](int n) {
            o->model_sample = n;
            o->model_sample_given = true;
          },
          "workgroups the model records in detail (default 0: one per workgroup its WGP "
          "simulation replays, at least 3: the first, interior ones, the last)");
      sub.add_flag("--model-only", o->model_only,
                   "run only the sampled workgroups (outputs are not written)");
      sub.add_option("--model-flops", o->model_flops,
                     "useful FLOPs of the launch, to report modeled TFLOP/s and % of peak");
      sub.add_option("--model-bytes", o->model_bytes,
                     "useful bytes of the launch, to report modeled GB/s and % of DRAM bandwidth");
      return [o]() {
        if (o->check)
          return load_named(o->code_object,
                            [](const std::vector<uint8_t>& b) { return check_code_object(b); });
        if (o->kernel.empty())
          throw std::invalid_argument("emu: --kernel NAME is required (or --check)");
        runtime::EmuDevice dev;
        if (o->no_memcheck)
          dev.set_memcheck(false);
        dev.set_threads(static_cast<unsigned>(o->threads));
        if (o->max_instructions)
          dev.set_max_instructions_per_wave(static_cast<uint64_t>(o->max_instructions));
        dev.set_time_limit(o->time_limit);
        if (o->progress > 0)
          dev.set_progress(print_progress, o->progress);
        if (o->model.empty() &&
            (o->model_only || o->model_flops > 0 || o->model_bytes > 0 || o->model_sample_given))
          throw std::invalid_argument(
              "emu: --model-only / --model-sample / --model-flops / --model-bytes need --model");
        if (!o->model.empty()) {
          emu::timing::TimingOptions t;
          t.machine = o->model;
          t.sample = o->model_sample;
          t.model_only = o->model_only;
          t.work_flops = o->model_flops;
          t.work_bytes = o->model_bytes;
          try {
            emu::timing::validate(t);
          } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("emu: --model / --model-sample: {}", e.what()));
          }
          dev.set_timing_model(t);
        }
        const auto grid = parse_dim3(o->grid, "--grid");
        const uint64_t workgroups = uint64_t(grid[0]) * grid[1] * grid[2];
        if (workgroups > static_cast<uint64_t>(o->max_workgroups))
          throw std::invalid_argument(
              fmt::format("emu: --grid {} is {} workgroups, more than --max-workgroups {} (raise "
                          "it to run a grid this large)",
                          o->grid, workgroups, o->max_workgroups));
        const auto block = parse_dim3(o->block, "--block");
        std::vector<ArgSpec> args;
        for (const auto& a : o->args)
          args.push_back(parse_arg(a));
        std::map<std::string, ArgSpec> named = parse_named_buffers(o->buffers, args);
        check_distinct_outputs(args, named);
        auto module = load_named(
            o->code_object, [&](const std::vector<uint8_t>& b) { return dev.load_code_object(b); });
        auto kernel = dev.get_kernel(module, o->kernel);
        const emu::KernelInfo& info = dev.code_object(module).kernel(o->kernel);
        for (auto& a : args) {
          if (!a.is_buffer)
            continue;
          a.ptr = dev.allocate(a.array.data.size());
          dev.copy_to_device(a.ptr, a.array.data.data(), a.array.data.size());
        }
        std::map<std::string, runtime::DevicePtr> named_ptrs;
        for (auto& [name, b] : named) {
          b.ptr = dev.allocate(b.array.data.size());
          dev.copy_to_device(b.ptr, b.array.data.data(), b.array.data.size());
          named_ptrs[name] = b.ptr;
        }
        for (auto& a : args)
          if (a.structure)
            a.scalar = pack_struct(*a.structure, named_ptrs, a.text);
        const std::vector<uint8_t> kernargs = pack_args(info, args);
        if (o->trace || !o->trace_wave.empty()) {
          emu::TraceConfig t;
          t.enabled = true;
          t.out = &std::cout;
          if (!o->trace_wave.empty()) {
            const auto colon = o->trace_wave.find(':');
            if (colon == std::string::npos)
              throw std::invalid_argument("emu: --trace-wave must be WGX,WGY,WGZ:WAVE");
            t.workgroup = parse_dim3(o->trace_wave.substr(0, colon), "--trace-wave", true);
            t.wave = parse_number<int>(o->trace_wave.substr(colon + 1), "--trace-wave");
          }
          dev.set_trace(t);
        }
        dev.launch(kernel, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, kernargs,
                   static_cast<uint32_t>(o->lds));
        auto write_output = [&](ArgSpec& a) {
          if (a.out_file.empty() || o->model_only)
            return;
          dev.copy_to_host(a.array.data.data(), a.ptr, a.array.data.size());
          npy::write(a.out_file, a.array);
        };
        for (auto& a : args)
          write_output(a);
        for (auto& [name, b] : named)
          write_output(b);
        const emu::LaunchStats& s = dev.last_stats();
        const auto& timing = dev.last_timing();
        if (o->json && timing)
          std::cout << "{\"stats\": " << s.to_json() << ", \"timing\": " << timing->to_json()
                    << "}\n";
        else
          std::cout << (o->json ? s.to_json() + "\n" : s.to_string());
        if (timing && !o->json)
          std::cout << timing->to_string();
        if (o->model_only && !o->json)
          std::cout << "--model-only: only the sampled workgroups ran; no output buffer written\n";
        return 0;
      };
    }};

} // namespace
} // namespace tw::tool
