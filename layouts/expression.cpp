// The parser and evaluator of layout expressions (see expression.hpp). Compiled once into
// tw_layouts: the algebra it calls is the constexpr core of the headers.
#include <layouts/expression.hpp>

#include <cctype>
#include <vector>

namespace tw {

std::string to_string(const LayoutValue& v) {

  switch (v.kind) {
  case LayoutValue::Kind::tuple:
    return to_string(v.tuple);
  case LayoutValue::Kind::layout:
    return to_string(v.layout);
  case LayoutValue::Kind::composed:
    return to_string(v.swizzle) + " o " + to_string(v.layout);
  case LayoutValue::Kind::tiler:
    return to_string(v.tiler);
  case LayoutValue::Kind::swizzle:
    return to_string(v.swizzle);
  case LayoutValue::Kind::integer:
    return std::to_string(v.integer);
  }
  return "";
}

namespace detail {

class ExpressionParser {
public:
  explicit ExpressionParser(std::string_view text) : s_(text) {}

  LayoutValue parse_all() {
    LayoutValue v = expression();
    skip_space();
    if (p_ != s_.size())
      fail(p_, "unexpected '" + std::string(1, s_[p_]) + "' after the end of the expression");
    return v;
  }

private:
  std::string_view s_;
  size_t p_ = 0;
  int depth_ = 0; // nesting depth, bounded so hostile input cannot exhaust the stack

  struct Nest {
    ExpressionParser& p;
    explicit Nest(ExpressionParser& parser) : p(parser) {
      if (++p.depth_ > 64)
        p.fail(p.p_, "the expression nests deeper than 64 levels");
    }
    ~Nest() { --p.depth_; }
  };

  [[noreturn]] void fail(size_t at, const std::string& msg) const {
    throw ExpressionError(at, msg);
  }

  void skip_space() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_])))
      ++p_;
  }
  bool peek(char c) {
    skip_space();
    return p_ < s_.size() && s_[p_] == c;
  }
  bool accept(char c) {
    if (!peek(c))
      return false;
    ++p_;
    return true;
  }
  void expect(char c, const std::string& what) {
    if (!accept(c))
      fail(p_, std::string("expected '") + c + "' " + what +
                   (p_ < s_.size() ? std::string(", found '") + s_[p_] + "'" : ", found the end"));
  }
  // 'o' as the composition operator: a lone word "o".
  bool accept_compose_operator() {
    skip_space();
    if (p_ < s_.size() && s_[p_] == 'o' &&
        (p_ + 1 == s_.size() ||
         !(std::isalnum(static_cast<unsigned char>(s_[p_ + 1])) || s_[p_ + 1] == '_'))) {
      ++p_;
      return true;
    }
    return false;
  }

  int64_t integer() {
    skip_space();
    const size_t start = p_;
    bool negative = false;
    if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '+'))
      negative = s_[p_++] == '-';
    if (p_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[p_])))
      fail(start, "expected an integer");
    int64_t v = 0;
    while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) {
      if (v > (INT64_MAX - 9) / 10)
        fail(start, "integer too large");
      v = v * 10 + (s_[p_++] - '0');
    }
    return negative ? -v : v;
  }

  // An int tuple, or nothing (position restored) when the text is not one.
  bool try_int_tuple(DynTuple& out) {
    const size_t save = p_;
    try {
      out = int_tuple();
      return true;
    } catch (const ExpressionError&) {
      p_ = save;
      return false;
    }
  }
  DynTuple int_tuple() {
    Nest nest(*this);
    skip_space();
    if (!accept('('))
      return dyn_int(integer());
    DynTuple t;
    open(t.t);
    do {
      append(t.t, int_tuple().t);
    } while (accept(','));
    expect(')', "to close the tuple");
    close(t.t);
    if (t.t.overflow)
      fail(p_, sentence(Status::too_large));
    return t;
  }

  LayoutValue expression() {
    Nest nest(*this);
    skip_space();
    const size_t start = p_;
    LayoutValue left = operand();
    if (!accept_compose_operator())
      return left;
    const size_t op_at = p_ - 1;
    LayoutValue right = expression(); // right-associative: A o B o C = A o (B o C)
    return compose(left, right, start, op_at);
  }

  LayoutValue operand() {
    skip_space();
    const size_t start = p_;
    if (p_ >= s_.size())
      fail(p_, "expected a layout, a tuple or a function, found the end");
    if (s_.substr(p_, 3) == "Sw<")
      return swizzle_literal();
    if (std::isalpha(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')
      return call();
    if (s_[p_] == '<')
      return tiler_tuple('<', '>');
    DynTuple shape;
    if (try_int_tuple(shape)) {
      if (!accept(':')) {
        LayoutValue v;
        v.kind = LayoutValue::Kind::tuple;
        v.tuple = shape;
        return v;
      }
      const size_t stride_at = p_;
      DynTuple stride = int_tuple();
      Status st = check_layout(shape, stride);
      if (st != Status::ok)
        fail(stride_at, std::string(sentence(st)) + ": shape " + to_string(shape) +
                            " with stride " + to_string(stride));
      LayoutValue v;
      v.kind = LayoutValue::Kind::layout;
      v.layout = zip_layout(shape, stride);
      return v;
    }
    p_ = start;
    if (s_[p_] == '(')
      return tiler_tuple('(', ')');
    fail(start, "expected a layout, a tuple or a function");
  }

  LayoutValue swizzle_literal() {
    const size_t start = p_;
    p_ += 3;
    const int b = int(integer());
    expect(',', "between the swizzle parameters");
    const int m = int(integer());
    expect(',', "between the swizzle parameters");
    const int sh = int(integer());
    expect('>', "to close Sw<B,M,S>");
    if (check_swizzle(b, m, sh) != Status::ok)
      fail(start, sentence(Status::bad_swizzle));
    LayoutValue v;
    v.kind = LayoutValue::Kind::swizzle;
    v.swizzle = {b, m, sh};
    return v;
  }

  LayoutValue tiler_tuple(char open_c, char close_c) {
    const size_t start = p_;
    expect(open_c, "to open the tiler");
    std::vector<DynTiler> parts;
    do {
      const size_t at = p_;
      parts.push_back(as_tiler(expression(), at));
    } while (accept(','));
    expect(close_c, "to close the tiler");
    LayoutValue v;
    v.kind = LayoutValue::Kind::tiler;
    open(v.tiler.structure);
    for (const DynTiler& t : parts)
      append_tiler(v.tiler, t);
    close(v.tiler.structure);
    if (v.tiler.overflow)
      fail(start, "the tiler has more than " + std::to_string(kMaxTilerLeaves) + " layouts");
    return v;
  }

  std::string identifier() {
    const size_t start = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_'))
      ++p_;
    return std::string(s_.substr(start, p_ - start));
  }

  LayoutValue call() {
    const size_t start = p_;
    const std::string name = identifier();
    if (!peek('('))
      fail(start, "unknown name '" + name + "' (functions take arguments in parentheses)");
    expect('(', "after the function name");
    std::vector<LayoutValue> args;
    std::vector<size_t> at;
    if (!peek(')')) {
      do {
        skip_space();
        at.push_back(p_);
        args.push_back(expression());
      } while (accept(','));
    }
    expect(')', "to close the argument list of " + name);
    try {
      return apply(name, args, at, start);
    } catch (const LayoutError& e) { // the checked arithmetic: point at the call
      fail(start, std::string(e.what()) + " (in " + name + ")");
    }
  }

  // ---- conversions of arguments ------------------------------------------------------------

  DynLayout as_layout(const LayoutValue& v, size_t at, const std::string& fn) const {
    if (v.kind == LayoutValue::Kind::layout)
      return v.layout;
    if (v.kind == LayoutValue::Kind::tuple)
      fail(at, fn + ": expected a layout (shape:stride), found the tuple " + to_string(v) +
                   "; write make_layout(" + to_string(v) + ") for a column-major layout");
    fail(at, fn + ": expected a layout, found " + to_string(v));
  }
  DynTiler as_tiler(const LayoutValue& v, size_t at) const {
    switch (v.kind) {
    case LayoutValue::Kind::layout:
      return layout_tiler(v.layout);
    case LayoutValue::Kind::tuple:
      return shape_tiler(v.tuple);
    case LayoutValue::Kind::tiler:
      return v.tiler;
    default:
      fail(at, "a tiler is a layout, a shape or a tuple of tilers, not " + to_string(v));
    }
  }
  DynTuple as_tuple(const LayoutValue& v, size_t at, const std::string& fn) const {
    if (v.kind != LayoutValue::Kind::tuple)
      fail(at, fn + ": expected an integer or a tuple, found " + to_string(v));
    return v.tuple;
  }

  static LayoutValue layout_value(const DynLayout& l) {
    LayoutValue v;
    v.kind = LayoutValue::Kind::layout;
    v.layout = l;
    return v;
  }
  static LayoutValue integer_value(int64_t i) {
    LayoutValue v;
    v.kind = LayoutValue::Kind::integer;
    v.integer = i;
    return v;
  }

  // Runs a core operation; a failure names the call and its operands.
  LayoutValue checked(const core::Outcome& r, const std::string& fn,
                      const std::vector<LayoutValue>& args, size_t at) const {
    if (!r.ok()) {
      std::string ops;
      for (size_t i = 0; i < args.size(); ++i)
        ops.append(i ? ", " : "").append(to_string(args[i]));
      fail(at, std::string(sentence(r.status)) + ": " + fn + "(" + ops + ")");
    }
    return layout_value(r.layout);
  }

  void arity(const std::string& fn, const std::vector<LayoutValue>& args, size_t lo, size_t hi,
             size_t at) const {
    if (args.size() < lo || args.size() > hi)
      fail(at,
           fn + " takes " +
               (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
               " argument" + (hi == 1 ? "" : "s") + ", not " + std::to_string(args.size()));
  }

  LayoutValue compose(const LayoutValue& a, const LayoutValue& b, size_t at, size_t op_at) const {
    const std::vector<LayoutValue> args{a, b};
    if (a.kind == LayoutValue::Kind::swizzle) {
      LayoutValue v;
      v.kind = LayoutValue::Kind::composed;
      v.swizzle = a.swizzle;
      if (b.kind == LayoutValue::Kind::composed)
        fail(op_at, "a swizzle composes with a plain layout, not with " + to_string(b));
      v.layout = as_layout(b, op_at + 1, "Sw o L");
      return v;
    }
    if (a.kind == LayoutValue::Kind::composed) {
      LayoutValue v = a;
      v.layout =
          checked(core::composition(a.layout, as_tiler(b, op_at + 1)), "composition", args, at)
              .layout;
      return v;
    }
    try {
      return checked(core::composition(as_layout(a, at, "composition"), as_tiler(b, op_at + 1)),
                     "composition", args, at);
    } catch (const LayoutError& e) {
      fail(op_at, std::string(e.what()) + " (in composition)");
    }
  }

  LayoutValue apply(const std::string& fn, const std::vector<LayoutValue>& args,
                    const std::vector<size_t>& at, size_t start) const {
    using Kind = LayoutValue::Kind;
    auto L = [&](size_t i) { return as_layout(args[i], at[i], fn); };
    auto T = [&](size_t i) { return as_tiler(args[i], at[i]); };
    auto on_inner = [&](auto op) -> LayoutValue {
      // Right compositions of a swizzled layout act on its inner layout.
      if (args[0].kind == Kind::composed) {
        LayoutValue v = args[0];
        v.layout = checked(op(args[0].layout, T(1)), fn, args, start).layout;
        return v;
      }
      return checked(op(L(0), T(1)), fn, args, start);
    };
    if (fn == "composition") {
      arity(fn, args, 2, 2, start);
      return compose(args[0], args[1], start, at[1] - 1);
    }
    if (fn == "coalesce") {
      arity(fn, args, 1, 2, start);
      if (args.size() == 1)
        return checked(core::coalesce(L(0)), fn, args, start);
      return checked(core::coalesce_by(L(0), as_tuple(args[1], at[1], fn)), fn, args, start);
    }
    if (fn == "complement") {
      arity(fn, args, 1, 2, start);
      if (args.size() == 1)
        return checked(core::complement(L(0)), fn, args, start);
      return checked(core::complement(L(0), size(as_tuple(args[1], at[1], fn))), fn, args, start);
    }
    if (fn == "right_inverse" || fn == "left_inverse") {
      arity(fn, args, 1, 1, start);
      return checked(fn == "right_inverse" ? core::right_inverse(L(0)) : core::left_inverse(L(0)),
                     fn, args, start);
    }
    if (fn == "logical_divide")
      return arity(fn, args, 2, 2, start),
             on_inner([](const auto& a, const auto& t) { return core::logical_divide(a, t); });
    if (fn == "zipped_divide")
      return arity(fn, args, 2, 2, start),
             on_inner([](const auto& a, const auto& t) { return core::zipped_divide(a, t); });
    if (fn == "tiled_divide")
      return arity(fn, args, 2, 2, start),
             on_inner([](const auto& a, const auto& t) { return core::tiled_divide(a, t); });
    if (fn == "flat_divide")
      return arity(fn, args, 2, 2, start),
             on_inner([](const auto& a, const auto& t) { return core::flat_divide(a, t); });
    if (fn == "logical_product" || fn == "zipped_product" || fn == "tiled_product" ||
        fn == "flat_product") {
      arity(fn, args, 2, 2, start);
      if (args[0].kind == Kind::composed)
        fail(at[0], fn + ": products of swizzled layouts are not supported");
      const core::Outcome r = fn == "logical_product"  ? core::logical_product(L(0), T(1))
                              : fn == "zipped_product" ? core::zipped_product(L(0), T(1))
                              : fn == "tiled_product"  ? core::tiled_product(L(0), T(1))
                                                       : core::flat_product(L(0), T(1));
      return checked(r, fn, args, start);
    }
    if (fn == "blocked_product" || fn == "raked_product") {
      arity(fn, args, 2, 2, start);
      if (args[1].kind == Kind::tiler)
        fail(at[1], std::string(sentence(Status::not_a_layout_tiler)));
      const DynLayout b = args[1].kind == Kind::tuple ? make_layout(args[1].tuple) : L(1);
      return checked(fn == "blocked_product" ? core::blocked_product(L(0), b)
                                             : core::raked_product(L(0), b),
                     fn, args, start);
    }
    if (fn == "make_layout") {
      arity(fn, args, 1, detail::kMaxLeaves, start);
      if (args[0].kind == Kind::tuple) {
        arity(fn, args, 1, 2, start);
        const DynTuple shape = args[0].tuple;
        const DynTuple stride =
            args.size() == 2 ? as_tuple(args[1], at[1], fn) : compact_col_major(shape);
        if (Status st = check_layout(shape, stride); st != Status::ok)
          fail(start, std::string(sentence(st)) + ": make_layout(" + to_string(shape) + ", " +
                          to_string(stride) + ")");
        return layout_value(zip_layout(shape, stride));
      }
      DynLayout r;
      open(r.t);
      for (size_t i = 0; i < args.size(); ++i)
        append(r.t, L(i).t);
      close(r.t);
      return checked(core::success(r), fn, args, start);
    }
    if (fn == "make_ordered_layout") {
      arity(fn, args, 2, 2, start);
      const DynTuple shape = as_tuple(args[0], at[0], fn), order = as_tuple(args[1], at[1], fn);
      if (order.t.nleaf != shape.t.nleaf)
        fail(at[1], "make_ordered_layout needs one order entry per shape entry");
      return layout_value(zip_layout(shape, compact_ordered(shape, order)));
    }
    if (fn == "size" || fn == "cosize" || fn == "rank" || fn == "depth") {
      arity(fn, args, 1, 1, start);
      if (args[0].kind == Kind::tuple)
        return integer_value(fn == "size"    ? size(args[0].tuple)
                             : fn == "rank"  ? rank(args[0].tuple)
                             : fn == "depth" ? depth(args[0].tuple)
                                             : (fail(at[0], "cosize needs a layout"), int64_t(0)));
      const DynLayout l = args[0].kind == Kind::composed ? args[0].layout : L(0);
      if (fn == "cosize" && args[0].kind == Kind::composed) {
        // The swizzle is no affine map: its cosize visits every element, so bound the count.
        constexpr int64_t kMaxVisited = int64_t(1) << 24;
        if (l.size() > kMaxVisited)
          fail(at[0], "cosize of a swizzled layout visits each of its " + std::to_string(l.size()) +
                          " elements; at most " + std::to_string(kMaxVisited) + " are visited");
        int64_t hi = 0;
        for (int64_t i = 0; i < l.size(); ++i)
          hi = std::max(hi, args[0](i));
        return integer_value(hi + 1);
      }
      return integer_value(fn == "size"     ? l.size()
                           : fn == "cosize" ? l.cosize()
                           : fn == "rank"   ? l.rank()
                                            : l.depth());
    }
    fail(start, "unknown function '" + fn +
                    "' (known: composition coalesce complement right_inverse left_inverse "
                    "logical_divide zipped_divide tiled_divide flat_divide logical_product "
                    "zipped_product tiled_product flat_product blocked_product raked_product "
                    "make_layout make_ordered_layout size cosize rank depth)");
  }
};

} // namespace detail

LayoutValue evaluate_layout_expression(std::string_view text) {
  return detail::ExpressionParser(text).parse_all();
}

} // namespace tw
