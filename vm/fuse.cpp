// Plan-time fusion of activations (kernels/fused_activation.hpp) into the conv2d, dense or
// matmul right before them, whose float result only they read:
//   p: h = conv2d ...   q: y = relu h | y = clip h           -> clamp
//   p: h = conv2d ...   q: s = sigmoid h   r: y = mul h, s   -> silu (f32; mul s, h too)
//   p: h = conv2d ...   q: y = leaky_relu h                 -> leaky (f32)
//                       [r: z = maximum y, c | maximum c, y]  (c a one-element f32 constant,
//                       not NaN; first, or not zero)   -> leaky with floor c
//   p: h = conv2d ...   q: a = add h, c3   r: c = clip a, a_min=0, a_max=6
//                       s: m = mul h, c (or mul c, h)   t: y = div m, c6   -> hardswish (f32;
//                       c3 and c6 one-element f32 constants 3 and 6, add c3, h too)
//                       [u: z = mul y, k (or mul k, y)  [v: z = add z, b (or add b, z)]]
//                       (k and b one-element f32 constants, not NaN: a scale and shift)
//   p: h = conv2d ...   [relu] (cvm_right_shift | cvm_clip) [cvm_clip | relu]...   -> requant
//                       (an i32 or i64 result: the integer path's requantization); on i32
//                       then mul by per-channel constants, shifts, clips, relus, casts to
//                       i32, add of a constant and cvm_lut in a constant table, in any order
//                       (mlvm-quantize's requantization, tables and integer hard-swish)
// The module is not changed: p's step writes y's register and carries the activation; the
// absorbed steps become `fused` steps that run nothing (they still count as steps, so step
// limits and profiles see the program as written).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <limits>
#include <memory>
#include <optional>

#include "ir/elementwise_rules.hpp"
#include "kernels/run_time_type.hpp"
#include "vm/plan.hpp"

namespace mlvm {

namespace {

// The activation a relu, clip (a clamp) or leaky_relu step applies to a `dt` result, or nothing.
std::optional<FusedActivation> single_step_activation(const PlannedInstruction& q, DType dt) {
  FusedActivation a;
  if (q.op == Opcode::leaky_relu) {  // f32 only: apply_fused_after runs it
    if (dt != DType::f32) return std::nullopt;
    a.kind = FusedActivation::Kind::leaky;
    a.alpha = q.attrs->get<leaky_relu_attrs>().alpha.as_double();
    return a;
  }
  if (q.op == Opcode::relu) {
    a.lo = 0.0;
    a.hi = std::numeric_limits<double>::infinity();
    return a;
  }
  if (q.op != Opcode::clip) return std::nullopt;
  try {
    const auto& c = q.attrs->get<clip_attrs>();
    const ew::ClipBounds b = ew::clip_bounds(dt, c.a_min, c.a_max);
    a.lo = b.flo;
    a.hi = b.fhi;
    return a;
  } catch (...) {
    return std::nullopt;  // the verifier accepted the bounds, so this does not happen
  }
}

class Fuser {
 public:
  Fuser(ExecPlan& plan, const Module& module)
      : plan_(plan), landed_(jump_targets(module, plan.code.size())),
        constant_of_(std::size_t(std::max(0, module.num_registers())), nullptr) {
    // A register holds its constant throughout only if no instruction writes it.
    for (const ConstDecl& c : module.constants)
      if (c.reg >= 0 && std::size_t(c.reg) < constant_of_.size()) constant_of_[std::size_t(c.reg)] = &c.value;
    for (const Instruction& ins : module.code)
      for (int32_t r : ins.results)
        if (r >= 0 && std::size_t(r) < constant_of_.size()) constant_of_[std::size_t(r)] = nullptr;
  }

  void run() {
    const std::size_t n = plan_.code.size();
    for (std::size_t pc = 0; pc + 1 < n; ++pc) {
      const PlannedInstruction& p = plan_.code[pc];
      if (p.kind != StepKind::kernel || !accepts_fused_activation(p.op) || p.num_results != 1) continue;
      const DType dt = result_dtype(p);
      if (dt == DType::i32 || dt == DType::i64) {
        pc += try_requant(pc, dt);
        continue;
      }
      if (dt != DType::f32 && dt != DType::f64) continue;
      if (const std::size_t n_hs = dt == DType::f32 ? try_hardswish(pc) : 0) pc += n_hs;
      else if (try_clamp(pc, dt) || (dt == DType::f32 && try_silu(pc))) ++pc;
    }
  }

 private:
  const int32_t* pool() const { return plan_.regs.data(); }
  const PlannedInstruction& at(std::size_t pc) const { return plan_.code[pc]; }
  DType result_dtype(const PlannedInstruction& s) const {
    const int32_t t = s.result_types(pool())[0];
    return t == kNoType ? DType::boolean : plan_.types[std::size_t(t)].dtype;
  }
  // Step pc can be absorbed: a kernel step of one result of dtype dt that no jump lands on.
  bool absorbable(std::size_t pc, uint32_t args, DType dt) const {
    if (pc >= plan_.code.size() || landed_[pc]) return false;
    const PlannedInstruction& s = at(pc);
    return s.kind == StepKind::kernel && s.num_args == args && s.num_results == 1 && result_dtype(s) == dt;
  }
  bool dies_at(std::size_t pc, int32_t r) const { return lists_register(at(pc).dying(pool()), at(pc).num_dying, r); }
  // p must not also read or drop `out`, the register it will write instead of its own.
  bool can_write(std::size_t pc, int32_t out) const {
    const PlannedInstruction& p = at(pc);
    return !lists_register(p.args(pool()), p.num_args, out) && !lists_register(p.dying(pool()), p.num_dying, out) &&
           !lists_register(p.release(pool()), p.num_release, out);
  }

  bool try_clamp(std::size_t pc, DType dt) {
    if (!absorbable(pc + 1, 1, dt)) return false;
    const int32_t h = at(pc).results(pool())[0];
    if (at(pc + 1).args(pool())[0] != h || !dies_at(pc + 1, h)) return false;
    std::optional<FusedActivation> a = single_step_activation(at(pc + 1), dt);
    const int32_t out = at(pc + 1).results(pool())[0];
    if (!a || !can_write(pc, out)) return false;
    if (a->kind == FusedActivation::Kind::leaky)
      if (const std::optional<double> c = leaky_floor(pc, out)) {
        const int32_t z = at(pc + 2).results(pool())[0];
        if (can_write(pc, z)) {
          a->floor = *c;
          fuse(pc, {pc + 1, pc + 2}, z, *a);
          return true;
        }
      }
    fuse(pc, {pc + 1}, out, *a);
    return true;
  }

  // The constant register r holds throughout, or null.
  const Tensor* constant_at(int32_t r) const {
    return r >= 0 && std::size_t(r) < constant_of_.size() ? constant_of_[std::size_t(r)] : nullptr;
  }

  // The one-element f32 constant register r holds (a rank at most that of pc's result, so it
  // never changes a shape), or nothing.
  std::optional<float> one_f32_constant(std::size_t pc, int32_t r) const {
    const Tensor* c = constant_at(r);
    const int32_t t = at(pc).result_types(pool())[0];
    if (!c || c->dtype() != DType::f32 || c->numel() != 1 || t == kNoType ||
        c->rank() > plan_.types[std::size_t(t)].dims.rank())
      return std::nullopt;
    return *c->data<float>();
  }

  // The constant c of a maximum at pc + 2 of y (the leaky_relu's result, dying there) and a
  // one-element f32 constant that is neither NaN nor, as the first operand, zero: maximum
  // keeps its first operand on ties, so maximum(c, y) with c = ±0 and y = ∓0 is c, where the
  // floor keeps y. One element of rank at most the result's never changes its shape.
  std::optional<double> leaky_floor(std::size_t pc, int32_t y) const {
    const std::optional<float> v = constant_operand(pc, pc + 2, Opcode::maximum, y);
    const bool c_first = v && at(pc + 2).args(pool())[0] != y;
    if (!v || *v != *v || (c_first && *v == 0.0f)) return std::nullopt;
    return double(*v);
  }

  bool try_silu(std::size_t pc) {
    if (!absorbable(pc + 1, 1, DType::f32) || !absorbable(pc + 2, 2, DType::f32)) return false;
    const PlannedInstruction &q = at(pc + 1), &r = at(pc + 2);
    const int32_t h = at(pc).results(pool())[0], s = q.results(pool())[0];
    if (q.op != Opcode::sigmoid || r.op != Opcode::mul || q.args(pool())[0] != h || s == h) return false;
    const int32_t a0 = r.args(pool())[0], a1 = r.args(pool())[1];
    if (!((a0 == h && a1 == s) || (a0 == s && a1 == h))) return false;
    // h and s die at the mul: nothing else sees them. (h is still live at the sigmoid.)
    if (dies_at(pc + 1, h) || !dies_at(pc + 2, h) || !dies_at(pc + 2, s)) return false;
    const int32_t out = r.results(pool())[0];
    if (!can_write(pc, out)) return false;
    FusedActivation a;
    a.kind = FusedActivation::Kind::silu;
    a.sigmoid_first = a0 == s;
    fuse(pc, {pc + 1, pc + 2}, out, a);
    return true;
  }

  // add h, 3 (either order) -> clip to exactly [0, 6] -> mul with h (either order) -> div by
  // 6, each intermediate dying where the next step reads it and h at the mul: nothing else
  // sees them, and the constants are the ones hardswish_f32 has built in.
  std::size_t try_hardswish(std::size_t pc) {
    for (std::size_t k = 1; k <= 4; ++k)
      if (!absorbable(pc + k, k == 2 ? 1 : 2, DType::f32)) return 0;
    const PlannedInstruction &q = at(pc + 1), &r = at(pc + 2), &s = at(pc + 3), &t = at(pc + 4);
    if (q.op != Opcode::add || r.op != Opcode::clip || s.op != Opcode::mul || t.op != Opcode::div) return 0;
    const int32_t h = at(pc).results(pool())[0], a = q.results(pool())[0], c = r.results(pool())[0];
    const int32_t m = s.results(pool())[0];
    const int32_t q0 = q.args(pool())[0], q1 = q.args(pool())[1];
    if ((q0 == h) == (q1 == h) || one_f32_constant(pc, q0 == h ? q1 : q0) != 3.0f) return 0;
    if (r.args(pool())[0] != a || !dies_at(pc + 2, a) || a == h || c == h) return 0;
    try {
      const ew::ClipBounds b = ew::clip_bounds(DType::f32, r.attrs->get<clip_attrs>().a_min,
                                               r.attrs->get<clip_attrs>().a_max);
      // +0 exactly: a -0 bound would turn the clip of +0 (x = -3) into -0.
      if (b.flo != 0.0 || std::signbit(b.flo) || b.fhi != 6.0) return 0;
    } catch (...) {
      return 0;  // the verifier accepted the bounds, so this does not happen
    }
    const int32_t s0 = s.args(pool())[0], s1 = s.args(pool())[1];
    if (!((s0 == h && s1 == c) || (s0 == c && s1 == h))) return 0;
    if (dies_at(pc + 1, h) || dies_at(pc + 2, h) || !dies_at(pc + 3, h) || !dies_at(pc + 3, c)) return 0;
    if (t.args(pool())[0] != m || !dies_at(pc + 4, m) || one_f32_constant(pc, t.args(pool())[1]) != 6.0f)
      return 0;
    int32_t out = t.results(pool())[0];
    FusedActivation act;
    act.kind = FusedActivation::Kind::hardswish;
    std::vector<std::size_t> absorbed = {pc + 1, pc + 2, pc + 3, pc + 4};
    // The scale and then the shift after, neither NaN: with two NaN operands mul and add return
    // the first one's, so only then does either operand order give the same bits.
    if (const std::optional<float> s = constant_operand(pc, pc + 5, Opcode::mul, out); s && *s == *s) {
      act.scaled = true;
      act.scale = *s;
      absorbed.push_back(pc + 5);
      out = at(pc + 5).results(pool())[0];
      if (const std::optional<float> t2 = constant_operand(pc, pc + 6, Opcode::add, out); t2 && *t2 == *t2) {
        act.shifted = true;
        act.shift = *t2;
        absorbed.push_back(pc + 6);
        out = at(pc + 6).results(pool())[0];
      }
    }
    if (!can_write(pc, out)) return 0;
    fuse(pc, absorbed, out, act);
    return absorbed.size();
  }

  // The one-element f32 constant c of step qc when it is `op` of y (dying there) and c, in
  // either order; otherwise nothing.
  std::optional<float> constant_operand(std::size_t pc, std::size_t qc, Opcode op, int32_t y) const {
    if (!absorbable(qc, 2, DType::f32) || at(qc).op != op || !dies_at(qc, y)) return std::nullopt;
    const int32_t a0 = at(qc).args(pool())[0], a1 = at(qc).args(pool())[1];
    if ((a0 == y) == (a1 == y)) return std::nullopt;
    return one_f32_constant(pc, a0 == y ? a1 : a0);
  }

  // The longest chain (of at most 16 steps) after pc of relus, at most one cvm_right_shift and
  // cvm_clips, no clip before the shift (the first stage); on an i32 result then the steps
  // requant_step reads (mlvm-quantize's multiplier, second shift and lookup table); each step
  // reading the one before's result where it dies. Returns the steps absorbed (0: none). The
  // relus commute with the shift and the clips (see kernels/fused_activation.hpp), so a relu
  // anywhere in the first stage is the same lower bound 0.
  std::size_t try_requant(std::size_t pc, DType dt) {
    const bool i32 = dt == DType::i32;
    FusedActivation a;
    a.kind = FusedActivation::Kind::requant;
    a.ilo = i32 ? INT32_MIN : INT64_MIN;
    a.ihi = i32 ? INT32_MAX : INT64_MAX;
    auto narrow = [&](int64_t precision) {
      const int64_t alpha = ew::cvm_alpha(std::clamp<int64_t>(precision, 1, 32));
      a.ilo = std::max(a.ilo, -alpha);
      a.ihi = std::min(a.ihi, alpha);
    };
    std::size_t taken = 0;
    bool relu = false, cvm = false, stepping = false;
    int32_t h = at(pc).results(pool())[0];
    for (std::size_t qc = pc + 1; qc < plan_.code.size() && taken < 24; ++qc) {
      const PlannedInstruction& q = at(qc);
      if (i32 && (cvm || a.num_steps > 0) && at(pc).op == Opcode::conv2d && narrowing_step(qc, h, a)) {
        ++taken;  // the last step but a clip: its result is no longer i32
        if (relu) a.ilo = std::max<int64_t>(a.ilo, 0);  // the first stage's bounds, for the clip
        if (trailing_clip(qc + 1, q.results(pool())[0], a)) ++taken;
        break;
      }
      if (i32 && (cvm || a.num_steps > 0))
        if (const std::optional<RequantStep> st = self_product(pc, qc, h)) {
          if (a.num_steps == kMaxRequantSteps) break;
          a.steps[std::size_t(a.num_steps++)] = *st;
          stepping = true;
          qc += 2;
          h = at(qc).results(pool())[0];
          taken += 3;
          continue;
        }
      if (!absorbable(qc, q.num_args, dt) || q.num_args < 1 || q.num_args > 2 || !dies_at(qc, h)) break;
      if (!stepping && q.num_args == 1 && q.args(pool())[0] == h) {
        try {
          bool first_stage = true;
          if (q.op == Opcode::relu) relu = true;
          else if (q.op == Opcode::cvm_clip) narrow(q.attrs->get<cvm_clip_attrs>().precision);
          else if (q.op == Opcode::cvm_right_shift && a.rshift < 0 && !cvm) {
            const auto& sh = q.attrs->get<cvm_shift_attrs>();
            if (sh.shift_bit < 1 || sh.shift_bit > 32) break;
            a.rshift = int(sh.shift_bit) - 1;
            narrow(sh.precision);
          } else first_stage = false;
          if (first_stage) {
            cvm = cvm || q.op != Opcode::relu;
            h = q.results(pool())[0];
            ++taken;
            continue;
          }
        } catch (...) {
          break;  // the verifier accepted the attributes, so this does not happen
        }
      }
      if (!i32) break;
      std::optional<RequantStep> step;
      if (!requant_step(pc, q, h, step)) break;
      if (step) {
        if (a.num_steps == kMaxRequantSteps) break;
        a.steps[std::size_t(a.num_steps++)] = *step;
      }
      stepping = true;
      h = q.results(pool())[0];
      ++taken;
    }
    if (!cvm && a.num_steps == 0) return 0;  // relus alone: nothing to requantize
    if (relu) a.ilo = std::max<int64_t>(a.ilo, 0);
    const int32_t out = at(pc + taken).results(pool())[0];
    if (!can_write(pc, out)) return 0;
    std::vector<std::size_t> absorbed;
    for (std::size_t k = 1; k <= taken; ++k) absorbed.push_back(pc + k);
    fuse(pc, absorbed, out, a);
    return taken;
  }

  // A step at qc that ends an i32 conv2d's requantization chain (value so far h) in narrower
  // integers, which the kernel then writes (FusedActivation::narrow): a cast to i8, u8 or
  // i16, or a cvm_lut of h in a constant table of those (as a lut step over the table
  // widened to i32, each element extended as its dtype says, then truncated back).
  bool narrowing_step(std::size_t qc, int32_t h, FusedActivation& a) const {
    if (qc >= plan_.code.size() || landed_[qc]) return false;
    const PlannedInstruction& q = at(qc);
    if (q.kind != StepKind::kernel || q.num_results != 1 || q.num_args < 1 || q.args(pool())[0] != h ||
        !dies_at(qc, h))
      return false;
    const DType to = result_dtype(q);
    if (to != DType::i8 && to != DType::u8 && to != DType::i16) return false;
    try {
      if (q.op == Opcode::cast && q.num_args == 1) {
        if (q.attrs->get<cast_attrs>().dtype != to) return false;
        a.narrow = to;
        return true;
      }
    } catch (...) {
      return false;  // the verifier accepted the attributes, so this does not happen
    }
    if (q.op != Opcode::cvm_lut || q.num_args != 2 || a.num_steps == kMaxRequantSteps) return false;
    const Tensor* c = constant_at(q.args(pool())[1]);
    if (!c || c->dtype() != to || !c->is_contiguous() || c->numel() < 1) return false;
    const std::vector<int64_t> values = read_ints(*c);  // each element extended as its dtype says
    auto wide = std::make_shared<std::vector<int32_t>>(values.begin(), values.end());
    RequantStep st;
    st.kind = RequantStep::Kind::lut;
    st.values = wide->data();
    st.count = c->numel();
    a.steps[std::size_t(a.num_steps++)] = st;
    a.widened_table = std::move(wide);
    a.narrow = to;
    return true;
  }

  // A clip at qc of the narrowed value h (the cast's result), which mlvm-quantize writes after
  // a layer's cast to i8 (ReLU6 in 8 bits): applied as a clip step on the i32 value before it
  // is narrowed. The same bits when the chain's last step (a shift's or clip's clamp) keeps
  // the value within the narrow dtype, where truncation changes nothing, so clip(trunc(v)) =
  // trunc(clip(v)).
  bool trailing_clip(std::size_t qc, int32_t h, FusedActivation& a) const {
    if (a.narrow == DType::i32 || a.widened_table || !absorbable(qc, 1, a.narrow)) return false;
    const PlannedInstruction& q = at(qc);
    if (q.op != Opcode::clip || q.args(pool())[0] != h || !dies_at(qc, h) || a.num_steps == kMaxRequantSteps)
      return false;
    int64_t lo = a.ilo, hi = a.ihi;  // the first stage's clamp, when no step follows it
    if (a.num_steps > 0) {
      const RequantStep& last = a.steps[std::size_t(a.num_steps - 1)];
      if (last.kind != RequantStep::Kind::rshift && last.kind != RequantStep::Kind::clip) return false;
      lo = last.lo;
      hi = last.hi;
    }
    const int64_t nlo = a.narrow == DType::i8 ? INT8_MIN : a.narrow == DType::u8 ? 0 : INT16_MIN;
    const int64_t nhi = a.narrow == DType::i8 ? INT8_MAX : a.narrow == DType::u8 ? UINT8_MAX : INT16_MAX;
    if (lo < nlo || hi > nhi) return false;
    RequantStep st;
    try {
      const ew::ClipBounds b = ew::clip_bounds(a.narrow, q.attrs->get<clip_attrs>().a_min,
                                               q.attrs->get<clip_attrs>().a_max);
      st.lo = int32_t(b.ilo);  // within the narrow dtype's range
      st.hi = int32_t(b.ihi);
    } catch (...) {
      return false;  // the verifier accepted the bounds, so this does not happen
    }
    a.steps[std::size_t(a.num_steps++)] = st;
    return true;
  }

  // The three instructions at qc t = add h, c; u = clip t, lo, hi; y = mul h, u (either order),
  // c a one-element i32 constant and h read by nothing after them (mlvm-quantize's integer
  // hard-swish, x · clip(x + 3, 0, 6) at x's scale) as one self_mul step, or nothing.
  std::optional<RequantStep> self_product(std::size_t pc, std::size_t qc, int32_t h) const {
    if (!absorbable(qc, 2, DType::i32) || !absorbable(qc + 1, 1, DType::i32) || !absorbable(qc + 2, 2, DType::i32))
      return std::nullopt;
    const PlannedInstruction &add = at(qc), &clip = at(qc + 1), &mul = at(qc + 2);
    if (add.op != Opcode::add || clip.op != Opcode::clip || mul.op != Opcode::mul) return std::nullopt;
    const int32_t a0 = add.args(pool())[0], a1 = add.args(pool())[1];
    if ((a0 == h) == (a1 == h) || dies_at(qc, h)) return std::nullopt;
    const Tensor* c = constant_at(a0 == h ? a1 : a0);
    const int32_t type = at(pc).result_types(pool())[0];
    if (!c || c->dtype() != DType::i32 || c->numel() != 1 || type == kNoType ||
        c->rank() > plan_.types[std::size_t(type)].dims.rank())
      return std::nullopt;
    const int32_t t = add.results(pool())[0];
    if (clip.args(pool())[0] != t || !dies_at(qc + 1, t)) return std::nullopt;
    const int32_t u = clip.results(pool())[0], m0 = mul.args(pool())[0], m1 = mul.args(pool())[1];
    if (!((m0 == h && m1 == u) || (m0 == u && m1 == h)) || !dies_at(qc + 2, h) || !dies_at(qc + 2, u))
      return std::nullopt;
    RequantStep st{.kind = RequantStep::Kind::self_mul, .values = c->data<int32_t>(), .count = 1};
    try {
      clip_bounds_i32(clip, st);
    } catch (...) {
      return std::nullopt;  // the verifier accepted the bounds, so this does not happen
    }
    return st;
  }

  // st's bounds: those of the clip q on i32 values (throws where its attributes do not read).
  static void clip_bounds_i32(const PlannedInstruction& q, RequantStep& st) {
    const ew::ClipBounds b =
        ew::clip_bounds(DType::i32, q.attrs->get<clip_attrs>().a_min, q.attrs->get<clip_attrs>().a_max);
    st.lo = int32_t(std::clamp<int64_t>(b.ilo, INT32_MIN, INT32_MAX));
    st.hi = int32_t(std::clamp<int64_t>(b.ihi, INT32_MIN, INT32_MAX));
  }

  // st's bounds: the CVM clip range of `precision`, ±(2^(p-1) - 1), within i32.
  static void cvm_bounds(int64_t precision, RequantStep& st) {
    const int64_t alpha = ew::cvm_alpha(std::clamp<int64_t>(precision, 1, 32));
    st.lo = int32_t(std::max<int64_t>(-alpha, INT32_MIN));
    st.hi = int32_t(std::min<int64_t>(alpha, INT32_MAX));
  }

  // Step q of an i32 requantization chain whose value so far is h: relu, clip, cvm_clip and
  // cvm_right_shift as steps; a cast to i32 (no step: nothing changes); mul by an i32
  // constant of one element or one per channel of p's result (conv2d: axis 1; dense, matmul:
  // the last axis), add of a one-element i32 constant, and cvm_lut of h in an i32 constant
  // table. Constants shaped so that they never change the result's shape. False: not a step.
  bool requant_step(std::size_t pc, const PlannedInstruction& q, int32_t h, std::optional<RequantStep>& step) const {
    RequantStep st;
    const int32_t a0 = q.args(pool())[0], a1 = q.num_args > 1 ? q.args(pool())[1] : -1;
    try {
      if (q.num_args == 1 && a0 == h) {
        if (q.op == Opcode::cast) return q.attrs->get<cast_attrs>().dtype == DType::i32;
        st.lo = INT32_MIN;
        st.hi = INT32_MAX;
        if (q.op == Opcode::relu) {
          st.lo = 0;
        } else if (q.op == Opcode::cvm_clip) {
          cvm_bounds(q.attrs->get<cvm_clip_attrs>().precision, st);
        } else if (q.op == Opcode::clip) {  // ReLU6 as mlvm-quantize writes it: bounds within i32
          clip_bounds_i32(q, st);
        } else if (q.op == Opcode::cvm_right_shift) {
          const auto& sh = q.attrs->get<cvm_shift_attrs>();
          if (sh.shift_bit < 1 || sh.shift_bit > 32) return false;
          st.kind = RequantStep::Kind::rshift;
          st.shift = int(sh.shift_bit) - 1;
          cvm_bounds(sh.precision, st);
        } else {
          return false;
        }
        step = st;
        return true;
      }
    } catch (...) {
      return false;  // the verifier accepted the attributes, so this does not happen
    }
    if (q.num_args != 2 || (a0 == h) == (a1 == h)) return false;
    const int32_t other = a0 == h ? a1 : a0;
    const Tensor* c = constant_at(other);
    if (!c || c->dtype() != DType::i32 || !c->is_contiguous() || c->numel() < 1) return false;
    st.values = c->data<int32_t>();
    st.count = c->numel();
    if (q.op == Opcode::cvm_lut) {
      if (a0 != h) return false;
      st.kind = RequantStep::Kind::lut;
      step = st;
      return true;
    }
    if (q.op != Opcode::mul && q.op != Opcode::add) return false;
    const int32_t t = at(pc).result_types(pool())[0];
    if (t == kNoType) return false;
    const Dims& dims = plan_.types[std::size_t(t)].dims;
    if (c->rank() > dims.rank()) return false;
    if (q.op == Opcode::add) {
      if (c->numel() != 1) return false;
      st.kind = RequantStep::Kind::add;
      step = st;
      return true;
    }
    st.kind = RequantStep::Kind::mul;
    if (c->numel() > 1) {
      // The one axis of the constant longer than 1 is the channel axis, right-aligned.
      const int axis = at(pc).op == Opcode::conv2d ? 1 : dims.rank() - 1;
      const int offset = dims.rank() - c->rank();
      for (int k = 0; k < c->rank(); ++k) {
        const int64_t want = k + offset == axis ? dims[axis] : 1;
        if (c->dim(k) != want || want == kDynamic) return false;
      }
      if (axis < 0 || axis >= dims.rank() || dims[axis] != c->numel()) return false;
      st.per_column = at(pc).op != Opcode::conv2d;
    }
    step = st;
    return true;
  }

  // p (at pc) writes `out`; each absorbed step keeps its drops (a register may hold an older
  // value) except `out`, which holds p's result from then on.
  void fuse(std::size_t pc, std::initializer_list<std::size_t> absorbed, int32_t out, const FusedActivation& a) {
    fuse(pc, std::vector<std::size_t>(absorbed), out, a);
  }
  void fuse(std::size_t pc, const std::vector<std::size_t>& absorbed, int32_t out, const FusedActivation& a) {
    PlannedInstruction& p = plan_.code[pc];
    plan_.regs[p.regs + p.num_args] = out;
    // p's result now has the last absorbed step's type (a narrowing requantization's dtype).
    if (!absorbed.empty()) {
      const PlannedInstruction& last = at(absorbed.back());
      plan_.regs[p.regs + p.num_args + p.num_results + p.num_dying + p.num_release] =
          last.result_types(pool())[0];
    }
    for (std::size_t qc : absorbed) {
      PlannedInstruction& q = plan_.code[qc];
      const int32_t* pl = pool();
      std::vector<int32_t> lists(q.args(pl), q.args(pl) + q.num_args + q.num_results);
      uint32_t dying = 0;
      for (uint32_t k = 0; k < q.num_dying; ++k)
        if (q.dying(pl)[k] != out) {
          lists.push_back(q.dying(pl)[k]);
          ++dying;
        }
      lists.insert(lists.end(), q.release(pl), q.release(pl) + q.num_release + q.num_results);
      q.regs = uint32_t(plan_.regs.size());
      q.num_dying = dying;
      q.may_donate = 0;
      q.kind = StepKind::fused;
      q.run = nullptr;
      plan_.regs.insert(plan_.regs.end(), lists.begin(), lists.end());
    }
    plan_.extras_for(pc).activation = a;
  }

  ExecPlan& plan_;
  std::vector<bool> landed_;
  std::vector<const Tensor*> constant_of_;  // per register: the constant it always holds, or null
};

}  // namespace

void fuse_activations(ExecPlan& plan, const Module& module) {
  Fuser(plan, module).run();
}

}  // namespace mlvm
