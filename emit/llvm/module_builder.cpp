// Kernel IR -> llvm::Module with IRBuilder. One ir::Op becomes a few LLVM instructions;
// structured control flow becomes basic blocks with phis. Semantics follow dsl/ir/op.hpp
// (and dsl/ir/README.md); the HIP emitter implements the same contract in C++ source.
#include <emit/llvm/llvm_backend.hpp>

#include <atoms/mma/gfx12_instrs.hpp>
#include <dsl/ir/ir.hpp>

#include <llvm/ADT/APFloat.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <stdexcept>
#include <string>

namespace tw::emit {

namespace {

using llvm::Intrinsic::ID;
namespace Intr = llvm::Intrinsic;

// Word 3 of a gfx12 buffer descriptor for raw, bounds-checked access (the value the HIP
// emitter uses, dsl/ir/README.md): format fields nonzero (raw loads ignore them), bit 24 set,
// OOB_SELECT = 3 (an access is out of range when its byte offset >= num_records: loads
// return 0, stores are dropped).
constexpr std::uint32_t kBufferRsrcWord3 = 0x31027000;

// Static LDS block alignment: enough for the 128-bit ds_load_b128 / ds_store_b128.
constexpr unsigned kLdsAlign = 16;

class ModuleBuilder {
public:
  ModuleBuilder(const ir::Kernel& k, Arch arch, llvm::LLVMContext& ctx)
      : k_(k), arch_(arch), ctx_(ctx), module_(std::make_unique<llvm::Module>(k.name, ctx)),
        b_(ctx) {}

  std::unique_ptr<llvm::Module> build() {
    module_->setTargetTriple(llvm::Triple("amdgcn-amd-amdhsa"));
    // Same code object version as clang-22 writes for the HIP backend (v6).
    module_->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", 600);
    values_.assign(k_.value_types.size(), nullptr);
    make_function();
    make_lds();
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
    emit_region(k_.body);
    b_.CreateRetVoid();
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(*module_, &os))
      throw std::runtime_error("llvm emitter: kernel '" + k_.name +
                               "' lowered to invalid LLVM IR (an emitter bug): " + os.str());
    return std::move(module_);
  }

private:
  // --- types --------------------------------------------------------------------------------
  llvm::Type* scalar_type(ir::Type t) {
    switch (t.kind()) {
    case ir::TypeKind::int_:
      return llvm::IntegerType::get(ctx_, t.elem_bits());
    case ir::TypeKind::f16:
      return llvm::Type::getHalfTy(ctx_);
    case ir::TypeKind::bf16:
      return llvm::Type::getBFloatTy(ctx_);
    case ir::TypeKind::f32:
      return llvm::Type::getFloatTy(ctx_);
    case ir::TypeKind::e4m3:
    case ir::TypeKind::e5m2:
      return llvm::Type::getInt8Ty(ctx_); // storage only: arithmetic goes through cvt
    case ir::TypeKind::ptr:
      return llvm::PointerType::get(ctx_, static_cast<unsigned>(t.addr_space()));
    case ir::TypeKind::buffer_rsrc:
      return llvm::PointerType::get(ctx_, 8); // AMDGPU buffer resource address space
    case ir::TypeKind::none:
      break;
    }
    throw std::runtime_error("llvm emitter: kernel '" + k_.name + "' uses an invalid type");
  }
  llvm::Type* type(ir::Type t) {
    llvm::Type* s = scalar_type(t.element());
    return t.is_vector() ? llvm::FixedVectorType::get(s, t.lanes()) : s;
  }
  llvm::Type* i32() { return b_.getInt32Ty(); }

  // --- values -------------------------------------------------------------------------------
  llvm::Value* val(ir::Value v) {
    if (v.id >= values_.size() || !values_[v.id])
      fail("uses %" + std::to_string(v.id) + " before it is defined");
    return values_[v.id];
  }
  void def(ir::Value v, llvm::Value* x) { values_.at(v.id) = x; }
  ir::Type ty(ir::Value v) const { return k_.type_of(v); }

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("llvm emitter: kernel '" + k_.name + "': op #" +
                             std::to_string(op_index_) + " '" +
                             (current_ ? ir::op_label(*current_) : std::string("?")) + "': " + why);
  }

  llvm::Value* call(ID id, llvm::ArrayRef<llvm::Type*> overloads,
                    llvm::ArrayRef<llvm::Value*> args) {
    llvm::Function* f = Intr::getOrInsertDeclaration(module_.get(), id, overloads);
    return b_.CreateCall(f, args);
  }
  // A hardware transcendental (llvm.amdgcn.exp2 / log / rcp / rsq: one VALU instruction per
  // element); vectors are done element by element, as the backend has no vector form.
  llvm::Value* hw_unary(ID id, llvm::Value* x) {
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
    if (!vt)
      return call(id, {x->getType()}, {x});
    llvm::Value* r = llvm::PoisonValue::get(vt);
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      llvm::Value* e = b_.CreateExtractElement(x, b_.getInt32(i));
      r = b_.CreateInsertElement(r, call(id, {e->getType()}, {e}), b_.getInt32(i));
    }
    return r;
  }
  // A 32-bit lane-op operand as i32 (f32, <2 x f16>, ... are reinterpreted).
  llvm::Value* as_i32(llvm::Value* x) { return b_.CreateBitCast(x, i32()); }
  llvm::Value* from_i32(llvm::Value* x, ir::Type t) { return b_.CreateBitCast(x, type(t)); }

  // --- kernel signature and LDS ---------------------------------------------------------------
  void make_function() {
    (void)ir::kernarg_layout(k_); // rejects argument types that have no kernarg slot
    std::vector<llvm::Type*> params;
    for (const ir::KernelArg& a : k_.args)
      params.push_back(type(a.type));
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    fn_ = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, k_.name, *module_);
    fn_->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
    fn_->setVisibility(llvm::GlobalValue::ProtectedVisibility);
    const std::string wg = std::to_string(k_.flat_workgroup_size());
    fn_->addFnAttr("amdgpu-flat-work-group-size", wg + "," + wg);
    fn_->addFnAttr("uniform-work-group-size", "true");
    // The kernarg segment holds the explicit arguments only (ir::kernarg_layout): no hidden
    // arguments, whatever the optimization level.
    fn_->addFnAttr("amdgpu-no-implicitarg-ptr");
    fn_->addFnAttr("target-cpu", std::string(arch_name(arch_)));
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    for (std::size_t i = 0; i < k_.args.size(); ++i) {
      llvm::Argument* a = fn_->getArg(static_cast<unsigned>(i));
      a->setName(k_.args[i].name);
      a->addAttr(llvm::Attribute::NoUndef);
      def(k_.args[i].value, a);
    }
  }

  void make_lds() {
    if (k_.lds_bytes <= 0)
      return;
    auto* arr = llvm::ArrayType::get(b_.getInt8Ty(), static_cast<std::uint64_t>(k_.lds_bytes));
    lds_ = new llvm::GlobalVariable(*module_, arr, false, llvm::GlobalValue::InternalLinkage,
                                    llvm::PoisonValue::get(arr), k_.name + ".lds", nullptr,
                                    llvm::GlobalValue::NotThreadLocal, 3);
    lds_->setAlignment(llvm::Align(kLdsAlign));
  }

  // --- regions and control flow -------------------------------------------------------------
  // Emits the ops of `r`; returns the operands of its yield (empty when it has none).
  std::vector<llvm::Value*> emit_region(const ir::Region& r) {
    std::vector<llvm::Value*> yielded;
    for (const ir::Op& op : r.ops) {
      if (op.opcode == ir::Opcode::yield) {
        for (ir::Value v : op.operands)
          yielded.push_back(val(v));
        ++op_index_;
        continue;
      }
      emit_op(op);
    }
    return yielded;
  }

  void emit_for(const ir::Op& op) {
    const ir::Region& body = op.regions.at(0);
    llvm::Value* lb = val(op.operands[0]);
    llvm::Value* ub = val(op.operands[1]);
    llvm::Value* step = val(op.operands[2]);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx_, "for.header", fn_);
    auto* loop = llvm::BasicBlock::Create(ctx_, "for.body", fn_);
    auto* exit = llvm::BasicBlock::Create(ctx_, "for.exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* iv = b_.CreatePHI(lb->getType(), 2, "iv");
    iv->addIncoming(lb, pre);
    std::vector<llvm::PHINode*> carried;
    for (std::size_t i = 3; i < op.operands.size(); ++i) {
      llvm::Value* init = val(op.operands[i]);
      llvm::PHINode* phi = b_.CreatePHI(init->getType(), 2, "carried");
      phi->addIncoming(init, pre);
      carried.push_back(phi);
    }
    b_.CreateCondBr(b_.CreateICmpSLT(iv, ub), loop, exit);

    b_.SetInsertPoint(loop);
    def(body.args.at(0), iv);
    for (std::size_t i = 0; i < carried.size(); ++i)
      def(body.args.at(i + 1), carried[i]);
    const ir::Op* self = current_;
    ++op_index_;
    std::vector<llvm::Value*> next = emit_region(body);
    current_ = self;
    if (next.size() != carried.size())
      fail("the body yields " + std::to_string(next.size()) + " values for " +
           std::to_string(carried.size()) + " loop-carried values");
    llvm::BasicBlock* latch = b_.GetInsertBlock();
    iv->addIncoming(b_.CreateAdd(iv, step, "iv.next"), latch);
    for (std::size_t i = 0; i < carried.size(); ++i)
      carried[i]->addIncoming(next[i], latch);
    b_.CreateBr(header);

    b_.SetInsertPoint(exit);
    for (std::size_t i = 0; i < op.results.size(); ++i)
      def(op.results[i], carried.at(i));
  }

  void emit_if(const ir::Op& op) {
    auto* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fn_);
    auto* else_bb = llvm::BasicBlock::Create(ctx_, "if.else", fn_);
    auto* merge = llvm::BasicBlock::Create(ctx_, "if.end", fn_);
    b_.CreateCondBr(val(op.operands.at(0)), then_bb, else_bb);
    const ir::Op* self = current_;
    ++op_index_;

    b_.SetInsertPoint(then_bb);
    std::vector<llvm::Value*> then_vals = emit_region(op.regions.at(0));
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge);

    b_.SetInsertPoint(else_bb);
    std::vector<llvm::Value*> else_vals = emit_region(op.regions.at(1));
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    current_ = self;

    b_.SetInsertPoint(merge);
    if (then_vals.size() != op.results.size() || else_vals.size() != op.results.size())
      fail("the branches yield " + std::to_string(then_vals.size()) + " and " +
           std::to_string(else_vals.size()) + " values for " + std::to_string(op.results.size()) +
           " results");
    for (std::size_t i = 0; i < op.results.size(); ++i) {
      llvm::PHINode* phi = b_.CreatePHI(type(ty(op.results[i])), 2);
      phi->addIncoming(then_vals[i], then_end);
      phi->addIncoming(else_vals[i], else_end);
      def(op.results[i], phi);
    }
  }

  // --- ops ----------------------------------------------------------------------------------
  void emit_op(const ir::Op& op) {
    current_ = &op;
    using O = ir::Opcode;
    if (op.opcode == O::for_)
      return emit_for(op);
    if (op.opcode == O::if_)
      return emit_if(op);
    llvm::Value* r = lower(op);
    if (!op.results.empty()) {
      if (!r)
        fail("produced no value");
      def(op.results[0], r);
    }
    ++op_index_;
  }

  llvm::Value* opd(const ir::Op& op, std::size_t i) { return val(op.operands.at(i)); }
  ir::Type opd_ty(const ir::Op& op, std::size_t i) { return ty(op.operands.at(i)); }
  ir::Type res_ty(const ir::Op& op) { return ty(op.results.at(0)); }

  llvm::Value* lower(const ir::Op& op) {
    using O = ir::Opcode;
    const ir::Attrs& a = op.attrs;
    switch (op.opcode) {
    case O::const_int:
      return llvm::ConstantInt::get(type(res_ty(op)), static_cast<std::uint64_t>(a.int_value),
                                    /*IsSigned=*/true);
    case O::const_float: {
      if (res_ty(op).is_fp8()) // the code, held as i8
        return b_.getInt8(ir::fp8_constant(res_ty(op), a.float_value).code);
      llvm::Type* t = type(res_ty(op));
      llvm::APFloat f(a.float_value);
      bool lost = false;
      f.convert(t->getFltSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
      return llvm::ConstantFP::get(t, f);
    }
    case O::add:
    case O::sub:
    case O::mul:
      return arith(op);
    case O::div:
      return b_.CreateFDiv(opd(op, 0), opd(op, 1));
    case O::div_s:
      return b_.CreateSDiv(opd(op, 0), opd(op, 1));
    case O::div_u:
      return b_.CreateUDiv(opd(op, 0), opd(op, 1));
    case O::rem_s:
      return b_.CreateSRem(opd(op, 0), opd(op, 1));
    case O::rem_u:
      return b_.CreateURem(opd(op, 0), opd(op, 1));
    case O::neg:
      return is_float(op) ? b_.CreateFNeg(opd(op, 0)) : b_.CreateNeg(opd(op, 0));
    case O::abs:
      if (is_float(op))
        return call(Intr::fabs, {opd(op, 0)->getType()}, {opd(op, 0)});
      return call(Intr::abs, {opd(op, 0)->getType()}, {opd(op, 0), b_.getFalse()});
    case O::min:
    case O::max: {
      const bool mn = op.opcode == O::min;
      ID id = is_float(op) ? (mn ? Intr::minnum : Intr::maxnum) : (mn ? Intr::smin : Intr::smax);
      return call(id, {opd(op, 0)->getType()}, {opd(op, 0), opd(op, 1)});
    }
    case O::min_u:
      return call(Intr::umin, {opd(op, 0)->getType()}, {opd(op, 0), opd(op, 1)});
    case O::max_u:
      return call(Intr::umax, {opd(op, 0)->getType()}, {opd(op, 0), opd(op, 1)});
    case O::and_:
      return b_.CreateAnd(opd(op, 0), opd(op, 1));
    case O::or_:
      return b_.CreateOr(opd(op, 0), opd(op, 1));
    case O::xor_:
      return b_.CreateXor(opd(op, 0), opd(op, 1));
    case O::not_:
      return b_.CreateNot(opd(op, 0));
    case O::shl:
    case O::shr_u:
    case O::shr_s: {
      // The amount is taken modulo the width (what the hardware shifters do).
      llvm::Value* x = opd(op, 0);
      const int bits = opd_ty(op, 0).elem_bits();
      llvm::Value* amt = b_.CreateAnd(opd(op, 1), llvm::ConstantInt::get(x->getType(), bits - 1));
      if (op.opcode == O::shl)
        return b_.CreateShl(x, amt);
      return op.opcode == O::shr_u ? b_.CreateLShr(x, amt) : b_.CreateAShr(x, amt);
    }
    case O::mul_hi_u: { // the 64-bit product's high word: LLVM selects v_mul_hi_u32
      llvm::Type* t = opd(op, 0)->getType();
      llvm::Type* wide = t->getWithNewBitWidth(64);
      llvm::Value* p =
          b_.CreateMul(b_.CreateZExt(opd(op, 0), wide), b_.CreateZExt(opd(op, 1), wide));
      return b_.CreateTrunc(b_.CreateLShr(p, llvm::ConstantInt::get(wide, 32)), t);
    }
    case O::fma:
      return call(Intr::fma, {opd(op, 0)->getType()}, {opd(op, 0), opd(op, 1), opd(op, 2)});
    case O::exp2:
      return hw_unary(Intr::amdgcn_exp2, opd(op, 0));
    case O::log2:
      return hw_unary(Intr::amdgcn_log, opd(op, 0));
    case O::rcp:
      return hw_unary(Intr::amdgcn_rcp, opd(op, 0));
    case O::rsqrt:
      return hw_unary(Intr::amdgcn_rsq, opd(op, 0));
    case O::sqrt: // correctly rounded (llvm.sqrt without afn), like __builtin_sqrtf
      return call(Intr::sqrt, {opd(op, 0)->getType()}, {opd(op, 0)});
    case O::tanh:
      return tanh(opd(op, 0));
    case O::cmp:
      return compare(op);
    case O::select:
      return b_.CreateSelect(opd(op, 0), opd(op, 1), opd(op, 2));
    case O::trunc:
      return b_.CreateTrunc(opd(op, 0), type(res_ty(op)));
    case O::zext:
      return b_.CreateZExt(opd(op, 0), type(res_ty(op)));
    case O::sext:
      return b_.CreateSExt(opd(op, 0), type(res_ty(op)));
    case O::bitcast:
      return b_.CreateBitCast(opd(op, 0), type(res_ty(op)));
    case O::cvt:
      return convert(op);
    case O::splat:
      return b_.CreateVectorSplat(static_cast<unsigned>(res_ty(op).lanes()), opd(op, 0));
    case O::build_vector: {
      llvm::Value* v = llvm::PoisonValue::get(type(res_ty(op)));
      for (std::size_t i = 0; i < op.operands.size(); ++i)
        v = b_.CreateInsertElement(v, opd(op, i), b_.getInt32(static_cast<std::uint32_t>(i)));
      return v;
    }
    case O::extract:
      return b_.CreateExtractElement(opd(op, 0), b_.getInt32(static_cast<std::uint32_t>(a.index)));
    case O::insert:
      return b_.CreateInsertElement(opd(op, 0), opd(op, 1),
                                    b_.getInt32(static_cast<std::uint32_t>(a.index)));
    case O::slice: {
      std::vector<int> mask;
      for (int i = 0; i < res_ty(op).lanes(); ++i)
        mask.push_back(static_cast<int>(a.index) + i);
      return b_.CreateShuffleVector(opd(op, 0), mask);
    }
    case O::concat:
      return concat(op);
    case O::ptr_add:
      return b_.CreateGEP(b_.getInt8Ty(), opd(op, 0), opd(op, 1));
    case O::int_to_ptr:
      return b_.CreateIntToPtr(opd(op, 0), type(res_ty(op)));
    case O::load: {
      llvm::Type* t = type(res_ty(op));
      return b_.CreateAlignedLoad(t, opd(op, 0), alignment(res_ty(op), a.align));
    }
    case O::store:
      b_.CreateAlignedStore(opd(op, 1), opd(op, 0), alignment(opd_ty(op, 1), a.align));
      return nullptr;
    case O::global_load_tr: { // llvm.amdgcn.global.load.tr.b128.v8i16 / .b64.v2i32
      const bool b128 = res_ty(op).elem_bits() == 16;
      llvm::Type* raw =
          b128 ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(b_.getInt16Ty(), 8))
               : llvm::FixedVectorType::get(b_.getInt32Ty(), 2);
      llvm::Value* v =
          call(b128 ? Intr::amdgcn_global_load_tr_b128 : Intr::amdgcn_global_load_tr_b64, {raw},
               {opd(op, 0)});
      return b_.CreateBitCast(v, type(res_ty(op)));
    }
    case O::lds_ptr:
      if (!lds_)
        fail("the kernel has no LDS block (Kernel::lds_bytes is 0)");
      return b_.CreateConstGEP1_64(b_.getInt8Ty(), lds_, static_cast<std::uint64_t>(a.index));
    case O::buffer_rsrc:
      return call(Intr::amdgcn_make_buffer_rsrc,
                  {llvm::PointerType::get(ctx_, 8), llvm::PointerType::get(ctx_, 1)},
                  {opd(op, 0), b_.getInt16(0), b_.CreateZExt(opd(op, 1), b_.getInt64Ty()),
                   b_.getInt32(kBufferRsrcWord3)});
    case O::buffer_load: {
      llvm::Type* raw = buffer_word_type(res_ty(op));
      // soffset: the optional scalar byte offset (wave-uniform), else 0.
      llvm::Value* soffset = op.operands.size() > 2 ? opd(op, 2) : b_.getInt32(0);
      llvm::Value* v = call(Intr::amdgcn_raw_ptr_buffer_load, {raw},
                            {opd(op, 0), opd(op, 1), soffset, b_.getInt32(0)});
      return b_.CreateBitCast(v, type(res_ty(op)));
    }
    case O::buffer_store: {
      llvm::Type* raw = buffer_word_type(opd_ty(op, 2));
      call(Intr::amdgcn_raw_ptr_buffer_store, {raw},
           {b_.CreateBitCast(opd(op, 2), raw), opd(op, 0), opd(op, 1), b_.getInt32(0),
            b_.getInt32(0)});
      return nullptr;
    }
    case O::workitem_id:
      return workitem_id(a.dim);
    case O::workgroup_id: {
      static constexpr ID ids[] = {Intr::amdgcn_workgroup_id_x, Intr::amdgcn_workgroup_id_y,
                                   Intr::amdgcn_workgroup_id_z};
      return call(ids[static_cast<int>(a.dim)], {}, {});
    }
    case O::workgroup_size:
      return b_.getInt32(static_cast<std::uint32_t>(k_.workgroup_size[static_cast<int>(a.dim)]));
    case O::lane_id:
      // Lanes below this one in a full mask: the lane index (wave32: the low half suffices).
      return call(Intr::amdgcn_mbcnt_lo, {}, {b_.getInt32(~0u), b_.getInt32(0)});
    case O::wave_id:
      return wave_id();
    case O::bpermute:
      return from_i32(call(Intr::amdgcn_ds_bpermute, {}, {opd(op, 0), as_i32(opd(op, 1))}),
                      res_ty(op));
    case O::permlane16:
    case O::permlanex16: {
      const ID id = op.opcode == O::permlane16 ? Intr::amdgcn_permlane16 : Intr::amdgcn_permlanex16;
      llvm::Value* v = as_i32(opd(op, 0));
      return from_i32(
          call(id, {i32()}, {v, v, opd(op, 1), opd(op, 2), b_.getFalse(), b_.getFalse()}),
          res_ty(op));
    }
    case O::dpp:
      return from_i32(
          call(Intr::amdgcn_update_dpp, {i32()},
               {as_i32(opd(op, 0)), as_i32(opd(op, 1)),
                b_.getInt32(static_cast<std::uint32_t>(ir::dpp_ctrl_encoding(a.dpp))),
                b_.getInt32(a.row_mask), b_.getInt32(a.bank_mask), b_.getInt1(a.bound_ctrl)}),
          res_ty(op));
    case O::readfirstlane:
      return from_i32(call(Intr::amdgcn_readfirstlane, {i32()}, {as_i32(opd(op, 0))}), res_ty(op));
    case O::wmma:
    case O::swmmac:
      return matrix(op);
    case O::barrier:
      // LDS written before the barrier is visible after it: release / acquire at workgroup
      // scope around s_barrier (the barrier alone orders no memory). lds_only restricts the
      // fences to the local address space (MMRA "amdgpu-synchronize-as" = "local", what clang emits
      // for __builtin_amdgcn_fence(..., "local")): no global_inv.
      barrier_fence(llvm::AtomicOrdering::Release, op.attrs.lds_only);
      call(Intr::amdgcn_s_barrier, {}, {});
      barrier_fence(llvm::AtomicOrdering::Acquire, op.attrs.lds_only);
      return nullptr;
    case O::sched_barrier: // a scheduling fence of the AMDGPU schedulers (no machine code)
      call(Intr::amdgcn_sched_barrier, {},
           {b_.getInt32(static_cast<std::uint32_t>(op.attrs.int_value))});
      return nullptr;
    case O::wait_lds: // s_wait_dscnt: SIInsertWaitcnts keeps it and adds none it covers
      call(Intr::amdgcn_s_wait_dscnt, {},
           {b_.getInt16(static_cast<std::uint16_t>(op.attrs.int_value))});
      return nullptr;
    case O::wait_global: // s_wait_loadcnt
      call(Intr::amdgcn_s_wait_loadcnt, {},
           {b_.getInt16(static_cast<std::uint16_t>(op.attrs.int_value))});
      return nullptr;
    case O::for_:
    case O::if_:
    case O::yield:
      break;
    }
    fail("has no LLVM lowering");
  }

  // A workgroup-scope fence; lds_only attaches the memory model relaxation annotation that
  // limits it to LDS (LLVM AMDGPUUsage, "Memory Model Relaxation Annotations").
  void barrier_fence(llvm::AtomicOrdering order, bool lds_only) {
    llvm::FenceInst* f = b_.CreateFence(order, ctx_.getOrInsertSyncScopeID("workgroup"));
    if (lds_only)
      f->setMetadata(llvm::LLVMContext::MD_mmra,
                     llvm::MDTuple::get(ctx_, {llvm::MDString::get(ctx_, "amdgpu-synchronize-as"),
                                               llvm::MDString::get(ctx_, "local")}));
  }

  bool is_float(const ir::Op& op) { return opd_ty(op, 0).element().is_float(); }

  llvm::Value* arith(const ir::Op& op) {
    using O = ir::Opcode;
    llvm::Value* x = opd(op, 0);
    llvm::Value* y = opd(op, 1);
    if (is_float(op)) {
      if (op.opcode == O::add)
        return b_.CreateFAdd(x, y);
      return op.opcode == O::sub ? b_.CreateFSub(x, y) : b_.CreateFMul(x, y);
    }
    if (op.opcode == O::add)
      return b_.CreateAdd(x, y);
    return op.opcode == O::sub ? b_.CreateSub(x, y) : b_.CreateMul(x, y);
  }

  llvm::Value* compare(const ir::Op& op) {
    using P = ir::CmpPred;
    using LP = llvm::CmpInst::Predicate;
    llvm::Value* x = opd(op, 0);
    llvm::Value* y = opd(op, 1);
    const P p = op.attrs.pred;
    if (is_float(op)) {
      LP fp = LP::FCMP_OEQ;
      switch (p) {
      case P::eq:
        fp = LP::FCMP_OEQ;
        break;
      case P::ne:
        fp = LP::FCMP_UNE;
        break; // true when an operand is NaN
      case P::lt:
        fp = LP::FCMP_OLT;
        break;
      case P::le:
        fp = LP::FCMP_OLE;
        break;
      case P::gt:
        fp = LP::FCMP_OGT;
        break;
      case P::ge:
        fp = LP::FCMP_OGE;
        break;
      default:
        fail("unsigned predicate " + std::string(ir::to_string(p)) + " on floats");
      }
      return b_.CreateFCmp(fp, x, y);
    }
    LP ip = LP::ICMP_EQ;
    switch (p) {
    case P::eq:
      ip = LP::ICMP_EQ;
      break;
    case P::ne:
      ip = LP::ICMP_NE;
      break;
    case P::lt:
      ip = LP::ICMP_SLT;
      break;
    case P::le:
      ip = LP::ICMP_SLE;
      break;
    case P::gt:
      ip = LP::ICMP_SGT;
      break;
    case P::ge:
      ip = LP::ICMP_SGE;
      break;
    case P::ult:
      ip = LP::ICMP_ULT;
      break;
    case P::ule:
      ip = LP::ICMP_ULE;
      break;
    case P::ugt:
      ip = LP::ICMP_UGT;
      break;
    case P::uge:
      ip = LP::ICMP_UGE;
      break;
    }
    return b_.CreateICmp(ip, x, y);
  }

  llvm::Value* concat(const ir::Op& op) {
    llvm::Value* acc = opd(op, 0);
    int lanes = opd_ty(op, 0).lanes();
    for (std::size_t i = 1; i < op.operands.size(); ++i) {
      llvm::Value* next = opd(op, i);
      const int n = opd_ty(op, i).lanes();
      // Widen both to lanes + n, then pick acc's lanes followed by next's.
      const int total = lanes + n;
      std::vector<int> widen_acc, widen_next, pick;
      for (int l = 0; l < total; ++l) {
        widen_acc.push_back(l < lanes ? l : -1);
        widen_next.push_back(l < n ? l : -1);
        pick.push_back(l < lanes ? l : total + (l - lanes));
      }
      llvm::Value* wa = lanes == 1 ? b_.CreateVectorSplat(1, acc) : acc;
      llvm::Value* wn = n == 1 ? b_.CreateVectorSplat(1, next) : next;
      wa = b_.CreateShuffleVector(wa, widen_acc);
      wn = b_.CreateShuffleVector(wn, widen_next);
      acc = b_.CreateShuffleVector(wa, wn, pick);
      lanes = total;
    }
    return acc;
  }

  // Byte alignment of a memory access: the op's, else the natural one (dsl/ir/README.md: the
  // access size, 4 for 96-bit accesses).
  llvm::Align alignment(ir::Type t, std::uint32_t requested) {
    if (requested != 0)
      return llvm::Align(requested);
    const auto bytes = static_cast<unsigned>(t.bytes());
    return llvm::Align(bytes == 12 ? 4u : std::max(1u, bytes));
  }

  // The integer type a raw buffer access of `t` moves: i8, i16, i32 or <N x i32>.
  llvm::Type* buffer_word_type(ir::Type t) {
    const int bits = t.bits();
    if (bits == 8 || bits == 16 || bits == 32)
      return b_.getIntNTy(static_cast<unsigned>(bits));
    if (bits % 32 == 0 && bits <= 128)
      return llvm::FixedVectorType::get(i32(), static_cast<unsigned>(bits / 32));
    fail("a buffer access of " + ir::to_string(t) + " (" + std::to_string(bits) +
         " bits) is not 8, 16, 32, 64, 96 or 128 bits");
  }

  llvm::Value* workitem_id(ir::Dim d) {
    const int i = static_cast<int>(d);
    if (k_.workgroup_size[i] == 1)
      return b_.getInt32(0);
    static constexpr ID ids[] = {Intr::amdgcn_workitem_id_x, Intr::amdgcn_workitem_id_y,
                                 Intr::amdgcn_workitem_id_z};
    return call(ids[i], {}, {});
  }

  // The wave index, computed once at the top of the entry block and reused by every wave_id op:
  // the readfirstlane that makes it uniform is convergent, so LLVM does not hoist one built
  // inside a loop body (a GEMM K loop would recompute it and the addresses that depend on it).
  llvm::Value* wave_id() {
    if (!wave_id_) {
      const llvm::IRBuilderBase::InsertPointGuard guard(b_);
      llvm::BasicBlock& entry = fn_->getEntryBlock();
      b_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
      llvm::Value* wave = b_.CreateLShr(flat_workitem_id(), 5);
      wave_id_ = call(Intr::amdgcn_readfirstlane, {i32()}, {wave});
    }
    return wave_id_;
  }

  llvm::Value* flat_workitem_id() {
    llvm::Value* id = workitem_id(ir::Dim::x);
    const auto sx = static_cast<std::uint32_t>(k_.workgroup_size[0]);
    const auto sy = static_cast<std::uint32_t>(k_.workgroup_size[1]);
    if (k_.workgroup_size[1] > 1)
      id = b_.CreateAdd(id, b_.CreateMul(workitem_id(ir::Dim::y), b_.getInt32(sx)));
    if (k_.workgroup_size[2] > 1)
      id = b_.CreateAdd(id, b_.CreateMul(workitem_id(ir::Dim::z), b_.getInt32(sx * sy)));
    return id;
  }

  // tanh as dsl/ir/README.md defines it (the HIP emitter's tw_tanh, operation for operation):
  // below |x| = 2^-4 the odd polynomial x (1 + x^2 (c3 + x^2 c5)), else
  // copysign((1 - e) * rcp(1 + e), x) with e = exp2(-2 log2(e) |x|) on the hardware exp2 / rcp.
  llvm::Value* tanh(llvm::Value* x) {
    llvm::Type* f = x->getType();
    auto c = [&](float v) { return llvm::ConstantFP::get(f, static_cast<double>(v)); };
    llvm::Value* a = call(Intr::fabs, {f}, {x});
    llvm::Value* p = b_.CreateFMul(x, x);
    llvm::Value* q = call(Intr::fma, {f}, {p, c(0x1.111112p-3f), c(-0x1.555556p-2f)});
    llvm::Value* small = b_.CreateFMul(x, call(Intr::fma, {f}, {p, q, c(1.0f)}));
    llvm::Value* e = call(Intr::amdgcn_exp2, {f}, {b_.CreateFMul(a, c(-0x1.715476p+1f))});
    llvm::Value* r = call(Intr::amdgcn_rcp, {f}, {b_.CreateFAdd(c(1.0f), e)});
    llvm::Value* large =
        call(Intr::copysign, {f}, {b_.CreateFMul(b_.CreateFSub(c(1.0f), e), r), x});
    return b_.CreateSelect(b_.CreateFCmpOLT(a, c(0x1p-4f)), small, large);
  }

  // --- conversions --------------------------------------------------------------------------
  llvm::Value* convert(const ir::Op& op) {
    const ir::Type from = opd_ty(op, 0), to = res_ty(op);
    llvm::Value* x = opd(op, 0);
    if (!from.is_vector())
      return convert_scalar(op, x, op.operands.size() > 1 ? opd(op, 1) : nullptr, from, to);
    // fp8 conversions are per element intrinsics: convert lane by lane.
    llvm::Value* out = llvm::PoisonValue::get(type(to));
    llvm::Value* rnd = op.operands.size() > 1 ? opd(op, 1) : nullptr;
    for (int l = 0; l < from.lanes(); ++l) {
      llvm::Value* idx = b_.getInt32(static_cast<std::uint32_t>(l));
      llvm::Value* r = rnd ? b_.CreateExtractElement(rnd, idx) : nullptr;
      out = b_.CreateInsertElement(
          out, convert_scalar(op, b_.CreateExtractElement(x, idx), r, from.element(), to.element()),
          idx);
    }
    return out;
  }

  // Scalar cvt, the same steps as the HIP emitter (dsl/ir/README.md): ints go to and from
  // floats through f32; float -> float goes through f32 (exact for f16 / bf16 sources), then
  // saturates if asked (NaN passes), then rounds to the target.
  llvm::Value* convert_scalar(const ir::Op& op, llvm::Value* x, llvm::Value* random_bits,
                              ir::Type from, ir::Type to) {
    const ir::Attrs& a = op.attrs;
    llvm::Type* f32 = b_.getFloatTy();
    llvm::Type* dst = type(to);
    if (from.is_int()) { // int -> f32 (RNE), then f16 / bf16 (RNE)
      llvm::Value* f = a.is_unsigned ? b_.CreateUIToFP(x, f32) : b_.CreateSIToFP(x, f32);
      return to.kind() == ir::TypeKind::f32 ? f : b_.CreateFPTrunc(f, dst);
    }
    if (to.is_int()) { // float -> int, toward zero
      llvm::Value* f = from.kind() == ir::TypeKind::f32 ? x : b_.CreateFPExt(x, f32);
      return a.is_unsigned ? b_.CreateFPToUI(f, dst) : b_.CreateFPToSI(f, dst);
    }
    if (from.is_fp8()) { // exact
      const ID id =
          from.kind() == ir::TypeKind::e4m3 ? Intr::amdgcn_cvt_f32_fp8 : Intr::amdgcn_cvt_f32_bf8;
      llvm::Value* f = call(id, {}, {b_.CreateZExt(x, i32()), b_.getInt32(0)});
      return to.kind() == ir::TypeKind::f32 ? f : round_from_f32(f, to, a);
    }
    if (!from.is_float() || !(to.is_float() || to.is_fp8()))
      fail("cannot convert " + ir::to_string(from) + " to " + ir::to_string(to));
    llvm::Value* f = from.kind() == ir::TypeKind::f32 ? x : b_.CreateFPExt(x, f32);
    if (to.kind() == ir::TypeKind::f32)
      return f;
    if (a.saturate)
      f = saturate(f, to);
    if (to.is_fp8())
      return to_fp8(f, random_bits, to, a);
    return round_from_f32(f, to, a);
  }

  // Clamp to the target's largest finite magnitude; NaN passes through.
  llvm::Value* saturate(llvm::Value* f, ir::Type to) {
    double max = 57344.0; // e5m2
    switch (to.kind()) {
    case ir::TypeKind::f16:
      max = 65504.0;
      break;
    case ir::TypeKind::bf16:
      max = 0x1.fep+127;
      break;
    case ir::TypeKind::e4m3:
      max = 448.0;
      break;
    default:
      break;
    }
    llvm::Type* t = f->getType();
    llvm::Value* clamped = call(Intr::maxnum, {t}, {f, llvm::ConstantFP::get(t, -max)});
    clamped = call(Intr::minnum, {t}, {clamped, llvm::ConstantFP::get(t, max)});
    return b_.CreateSelect(b_.CreateFCmpUNO(f, f), f, clamped);
  }

  // f32 -> f16 / bf16 with the op's rounding (rne or rtz).
  llvm::Value* round_from_f32(llvm::Value* f, ir::Type to, const ir::Attrs& a) {
    if (a.rounding != ir::Rounding::rtz)
      return b_.CreateFPTrunc(f, type(to));
    if (to.kind() == ir::TypeKind::f16) {
      llvm::Value* pk =
          call(Intr::amdgcn_cvt_pkrtz, {}, {f, llvm::ConstantFP::get(f->getType(), 0.0)});
      return b_.CreateExtractElement(pk, b_.getInt32(0));
    }
    // bf16 toward zero: keep the high half of the f32 bits (a NaN stays a NaN: quiet it).
    llvm::Value* bits = b_.CreateBitCast(f, i32());
    llvm::Value* hi = b_.CreateTrunc(b_.CreateLShr(bits, 16), b_.getInt16Ty());
    hi = b_.CreateSelect(b_.CreateFCmpUNO(f, f), b_.CreateOr(hi, b_.getInt16(0x40)), hi);
    return b_.CreateBitCast(hi, type(to));
  }

  llvm::Value* to_fp8(llvm::Value* x, llvm::Value* random_bits, ir::Type to, const ir::Attrs& a) {
    const bool e4m3 = to.kind() == ir::TypeKind::e4m3;
    llvm::Value* packed = nullptr;
    if (a.rounding == ir::Rounding::stochastic) {
      const ID id = e4m3 ? Intr::amdgcn_cvt_sr_fp8_f32 : Intr::amdgcn_cvt_sr_bf8_f32;
      packed = call(id, {}, {x, random_bits, b_.getInt32(0), b_.getInt32(0)});
    } else {
      const ID id = e4m3 ? Intr::amdgcn_cvt_pk_fp8_f32 : Intr::amdgcn_cvt_pk_bf8_f32;
      packed = call(id, {},
                    {x, llvm::ConstantFP::get(x->getType(), 0.0), b_.getInt32(0), b_.getFalse()});
    }
    return b_.CreateTrunc(packed, b_.getInt8Ty());
  }

  // --- WMMA / SWMMAC ------------------------------------------------------------------------
  llvm::FunctionType* intrinsic_signature(const atoms::MmaInstrInfo& info) {
    // "<8 x float> (<8 x half>, ..., i1 immarg)": the type parser takes no attributes.
    std::string sig(info.signature);
    for (std::size_t p; (p = sig.find(" immarg")) != std::string::npos;)
      sig.erase(p, 7);
    llvm::SMDiagnostic diag;
    llvm::Type* t = llvm::parseType(sig, diag, *module_);
    auto* fty = llvm::dyn_cast_or_null<llvm::FunctionType>(t);
    if (!fty)
      fail("the atom table's signature '" + std::string(info.signature) +
           "' does not parse as an LLVM function type: " + diag.getMessage().str());
    return fty;
  }

  // Negation / absolute value of a whole operand, for WMMA modifiers the intrinsic does not
  // take as arguments (the backend folds fneg / fabs into neg_lo / neg_hi).
  llvm::Value* negate(llvm::Value* v, ir::Type t, bool abs_first, bool neg) {
    if (!t.element().is_float())
      fail("neg / abs modifiers apply to float operands only, not " + ir::to_string(t));
    if (abs_first)
      v = call(Intr::fabs, {v->getType()}, {v});
    return neg ? b_.CreateFNeg(v) : v;
  }

  llvm::Value* matrix(const ir::Op& op) {
    const atoms::MmaInstrInfo* info = atoms::find_mma_instr(op.attrs.atom);
    if (!info)
      fail("unknown atom '" + op.attrs.atom + "'");
    const ir::MmaMods& m = op.attrs.mma;
    llvm::FunctionType* fty = intrinsic_signature(*info);

    llvm::Value* av = opd(op, 0);
    llvm::Value* bv = opd(op, 1);
    llvm::Value* cv = opd(op, 2);
    // neg_lo / neg_hi bit 0: -A, bit 1: -B (the verifier requires lo and hi to agree);
    // bit 2: neg_hi takes |C|, neg_lo negates C (|C| first).
    if ((m.neg_lo | m.neg_hi) & 1)
      av = negate(av, opd_ty(op, 0), false, true);
    if ((m.neg_lo | m.neg_hi) & 2)
      bv = negate(bv, opd_ty(op, 1), false, true);
    if ((m.neg_lo | m.neg_hi) & 4)
      cv = negate(cv, opd_ty(op, 2), (m.neg_hi & 4) != 0, (m.neg_lo & 4) != 0);

    llvm::Value* index = nullptr;
    if (op.opcode == ir::Opcode::swmmac) {
      index = opd(op, 3);
      // index_key k selects bits [16k + 15 : 16k] of the index VGPR: shift them down.
      if (m.index_key != 0)
        index = b_.CreateLShr(index, b_.getInt32(16u * m.index_key));
    }

    // Non-immarg parameters take A, B, C (, index) in order; i1 immargs take the signedness
    // and clamp flags (iu8 / iu4: sgnA before A, sgnB before B, clamp last) or false
    // (the trailing op_sel of the f16 / bf16 accumulate forms).
    const bool has_sign = (info->modifiers & atoms::kMmaSignedness) != 0;
    std::vector<llvm::Value*> data = {av, bv, cv};
    if (index)
      data.push_back(index);
    std::vector<bool> flags;
    if (has_sign)
      flags = {m.a_signed, m.b_signed, m.clamp};
    std::size_t next_data = 0, next_flag = 0;
    std::vector<llvm::Value*> args;
    for (llvm::Type* p : fty->params()) {
      if (p->isIntegerTy(1)) {
        const bool f = next_flag < flags.size() ? flags[next_flag] : false;
        ++next_flag;
        args.push_back(b_.getInt1(f));
        continue;
      }
      if (next_data >= data.size())
        fail("the intrinsic " + std::string(info->intrinsic) + " takes more operands than the op");
      llvm::Value* v = data[next_data++];
      if (v->getType() != p)
        v = b_.CreateBitCast(v, p);
      args.push_back(v);
    }
    if (next_data != data.size())
      fail("the intrinsic " + std::string(info->intrinsic) + " takes fewer operands than the op");
    llvm::FunctionCallee f = module_->getOrInsertFunction(info->intrinsic, fty);
    llvm::Value* d = b_.CreateCall(f, args);
    return b_.CreateBitCast(d, type(res_ty(op)));
  }

  const ir::Kernel& k_;
  Arch arch_;
  llvm::LLVMContext& ctx_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  llvm::Value* wave_id_ = nullptr; // wave_id(): built once in the entry block
  llvm::GlobalVariable* lds_ = nullptr;
  std::vector<llvm::Value*> values_;
  const ir::Op* current_ = nullptr;
  int op_index_ = 0; // pre-order op number, as in ir::verify messages
};

} // namespace

std::unique_ptr<llvm::Module> build_llvm_module(const ir::Kernel& kernel, Arch arch,
                                                llvm::LLVMContext& context, KernelCheck check) {
  if (check == KernelCheck::verify)
    ir::verify(kernel);
  return ModuleBuilder(kernel, arch, context).build();
}

} // namespace tw::emit
