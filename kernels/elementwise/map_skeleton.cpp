// The map skeleton (see map_skeleton.hpp).
#include <kernels/elementwise/map_skeleton.hpp>

#include <stdexcept>

namespace tw::kernels::elementwise {

using namespace tw::dsl;

namespace {

// Run `col` of row `row`: loads every input's run, applies op, stores every output's run.
void map_run_at(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
                const Int64& row, const Int64& col, const Int64& width, int vec, const RunOp& op) {
  std::vector<Values> in;
  for (const MapTensor& t : inputs) {
    const Int64 first = t.start(row), pc = Int64(t.per_col);
    // One column per run is always whole (col < width): no mask needed.
    in.push_back(vec == 1 && t.per_col == 1 ? load_run(t.ptr, first + col, 1)
                                            : load_run_or_tail(t.ptr, first + col * pc,
                                                               vec * t.per_col, t.end(row, width)));
  }
  const std::vector<Values> out = op(row, col, in);
  if (out.size() != outputs.size())
    throw std::logic_error("map_runs: the op returned " + std::to_string(out.size()) +
                           " runs for " + std::to_string(outputs.size()) + " outputs");
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const MapTensor& t = outputs[o];
    const Int64 first = t.start(row), pc = Int64(t.per_col);
    if (vec == 1 && t.per_col == 1)
      store_run(t.ptr, first + col, out[o]);
    else
      store_run_or_tail(t.ptr, first + col * pc, out[o], t.end(row, width));
  }
}

// Calls fn(row, col) for this thread's run of a [rows, width] map, when it has one.
void for_this_run(const Int64& rows, const Int64& width, int vec,
                  const std::function<void(const Int64& row, const Int64& col)>& fn) {
  const Int64 runs_per_row = ceil_div(width, Int64(vec));
  const Int64 unit = cast<i64>(block_id()) * cast<i64>(block_dim()) + cast<i64>(thread_id());
  if_(unit < rows * runs_per_row, [&] {
    const Int64 row = unit / runs_per_row;
    fn(row, (unit - row * runs_per_row) * Int64(vec));
  });
}

} // namespace

void map_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
              const Int64& rows, const Int64& width, int vec, const RunOp& op) {
  for_this_run(rows, width, vec, [&](const Int64& row, const Int64& col) {
    map_run_at(inputs, outputs, row, col, width, vec, op);
  });
}

void map_grouped_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
                      const Int64& groups, const Int64& inner, const Int64& width, int vec,
                      const RunSetup& setup) {
  map_blocked_runs(
      inputs, outputs, groups,
      [&](const Int64& group) {
        const Int64 first = group * inner;
        return std::pair{first, first + inner};
      },
      width, vec, setup);
}

void map_blocked_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
                      const Int64& blocks, const BlockRows& rows, const Int64& width, int vec,
                      const RunSetup& setup) {
  for_this_run(blocks, width, vec, [&](const Int64& block, const Int64& col) {
    const RunOp op = setup(block, col);
    const auto [first, end] = rows(block);
    for_range(first, end,
              [&](const Int64& row) { map_run_at(inputs, outputs, row, col, width, vec, op); });
  });
}

void map_row_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
                  const Int64& width, int vec, const RowRunSetup& setup) {
  const Int64 row = cast<i64>(block_id());
  const RunOp op = setup(row);
  const Int64 step = cast<i64>(block_dim()) * Int64(vec);
  for_range(cast<i64>(thread_id()) * Int64(vec), width, step,
            [&](const Int64& col) { map_run_at(inputs, outputs, row, col, width, vec, op); });
}

void map_rows(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
              const Int64& rows, const Int64& width, int vec, const MapOp& op) {
  map_runs(inputs, outputs, rows, width, vec,
           [&](const Int64& row, const Int64& col, const std::vector<Values>& in) {
             std::vector<Values> out(outputs.size());
             for (int j = 0; j < vec; ++j) {
               Values x;
               for (const Values& v : in)
                 x.push_back(v[static_cast<std::size_t>(j)]);
               const Values y = op(row, col + Int64(j), x);
               if (y.size() != outputs.size())
                 throw std::logic_error("map_rows: the op returned " + std::to_string(y.size()) +
                                        " values for " + std::to_string(outputs.size()) +
                                        " outputs");
               for (std::size_t o = 0; o < y.size(); ++o)
                 out[o].push_back(y[o]);
             }
             return out;
           });
}

int64_t map_threads(int64_t rows, int64_t width, int vec) {
  return rows * ((width + vec - 1) / vec);
}

MapArgs map_args(KernelBuilder& kb, const std::vector<std::pair<const char*, DType>>& inputs,
                 const std::vector<std::pair<const char*, DType>>& outputs) {
  MapArgs a;
  for (const auto& [name, dtype] : inputs)
    a.inputs.push_back({any_ptr_arg(kb, name, dtype), Int64(), {}, 1});
  for (const auto& [name, dtype] : outputs)
    a.outputs.push_back({any_ptr_arg(kb, name, dtype), Int64(), {}, 1});
  a.rows = Int64(kb.add_arg("rows", ir::Type::i64()));
  a.width = Int64(kb.add_arg("width", ir::Type::i64()));
  for (MapTensor& t : a.inputs)
    t.ld = Int64(kb.add_arg("ld", ir::Type::i64()));
  for (MapTensor& t : a.outputs)
    t.ld = Int64(kb.add_arg("ld", ir::Type::i64()));
  return a;
}

} // namespace tw::kernels::elementwise
