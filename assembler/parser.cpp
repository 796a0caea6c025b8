#include "assembler/parser.hpp"

#include "assembler/cursor.hpp"
#include "assembler/diagnostics.hpp"
#include "assembler/lexer.hpp"
#include "assembler/literal.hpp"
#include "ir/op_table.hpp"

namespace mlvm::asm_detail {

namespace {

const char* kDtypeList = "f32 f64 i8 u8 i16 i32 i64 bool";

bool is_reserved(std::string_view w) {
  return w == "none" || w == "true" || w == "false";
}

class LineParser {
 public:
  LineParser(Cursor& c, int line, const std::string& base_dir, std::vector<Stmt>& out)
      : c_(c), line_(line), base_dir_(base_dir), out_(out) {}

  void parse() {
    const Token& first = c_.peek();
    if (first.kind == TokKind::end) return;
    if (first.kind == TokKind::directive) return directive();
    if (first.kind == TokKind::ident && c_.peek(1).is_punct(':')) {
      Stmt s;
      s.kind = StmtKind::label;
      s.pos = s.name_pos = pos(first);
      s.name = name_token("a label name");
      c_.next();  // ':'
      out_.push_back(std::move(s));
      // Extension: an instruction may follow its label on the same line.
      if (c_.at_end()) return;
    }
    instruction();
  }

 private:
  Pos pos(const Token& t) const { return Pos{line_, t.col}; }

  // A register / label / declaration name.
  std::string name_token(std::string_view what) {
    const Token& t = c_.peek();
    // A quoted name is any text (a model's `onnx::Flatten_0`); the verifier checks it.
    if (t.kind == TokKind::string && quoted_ok_) {
      if (t.text.empty()) Cursor::error_at(t, "a quoted name cannot be empty");
      return c_.next().text;
    }
    if (t.kind != TokKind::ident) c_.error_expected(what);
    if (is_reserved(t.text))
      Cursor::error_at(t, "'" + t.text + "' is a keyword and cannot be used as a name");
    return c_.next().text;
  }

  // `scalar`: where a declaration may be rank 0 (`i64[]`, an imported scalar), set when it is;
  // the type is then [1], as the module holds it.
  TensorType type(bool* scalar = nullptr) {
    const Token& dt_tok = c_.peek();
    if (dt_tok.kind != TokKind::ident)
      c_.error_expected(std::string("a type such as f32[2, ?] (dtypes: ") + kDtypeList + ")");
    auto dt = dtype_from_name(dt_tok.text);
    if (!dt) {
      std::string hint = suggest_dtype(dt_tok.text);
      Cursor::error_at(dt_tok, "unknown dtype " + dt_tok.describe() +
                                   (hint.empty() ? "; expected one of " + std::string(kDtypeList)
                                                 : "; did you mean '" + hint +
                                                       "'? (dtypes: " + kDtypeList + ")"));
    }
    c_.next();
    const Token& open = c_.expect_punct('[', "'[' and the dims after the dtype, e.g. f32[2, ?]");
    TensorType t;
    t.dtype = *dt;
    if (c_.peek().is_punct(']')) {
      if (!scalar)
        Cursor::error_at(c_.peek(), "a type needs at least one dim; a scalar is written " +
                                        std::string(dtype_name(*dt)) + "[1]");
      c_.next();
      *scalar = true;
      t.dims.push_back(1);
      return t;
    }
    for (;;) {
      const Token& d = c_.peek();
      if (d.is_punct('?')) {
        t.dims.size() < kMaxRank ? t.dims.push_back(kDynamic) : rank_error(d);
      } else if (d.kind == TokKind::integer) {
        if (d.i < 0)
          Cursor::error_at(d, "dim " + d.text + " is negative; expected a size >= 0 or '?'");
        t.dims.size() < kMaxRank ? t.dims.push_back(d.i) : rank_error(d);
      } else {
        c_.error_expected("a dim (an integer >= 0 or '?')");
      }
      c_.next();
      if (c_.accept_punct(']')) break;
      c_.expect_punct(',', "',' or ']'");
    }
    // The element count of the known dims must fit in int64.
    int64_t n = 1;
    for (int64_t d : t.dims) {
      if (d == kDynamic) continue;
      if (d != 0 && n > INT64_MAX / d) {
        Cursor::error_at(dt_tok, "type " + t.to_string() + " has more elements than fit in int64");
      }
      n *= d;
    }
    (void)open;
    return t;
  }

  [[noreturn]] void rank_error(const Token& d) {
    Cursor::error_at(d, "too many dims: rank is at most " + std::to_string(kMaxRank));
  }

  void directive() {
    const Token& d = c_.next();
    Stmt s;
    s.pos = pos(d);
    if (d.text == ".program") {
      s.kind = StmtKind::program;
      s.name_pos = pos(c_.peek());
      s.name = name_token("a program name");
      c_.expect_end();
    } else if (d.text == ".no_precision_check") {
      s.kind = StmtKind::flag;
      s.name = "no_precision_check";
      c_.expect_end();
    } else if (d.text == ".input" || d.text == ".const" || d.text == ".output") {
      s.kind = d.text == ".input"   ? StmtKind::input
               : d.text == ".const" ? StmtKind::constant
                                    : StmtKind::output;
      s.name_pos = pos(c_.peek());
      quoted_ok_ = true;
      s.name = name_token(d.text == ".input"   ? "an input name"
                          : d.text == ".const" ? "a constant name"
                                               : "an output name");
      quoted_ok_ = false;
      if (s.kind == StmtKind::output) {
        if (c_.at_end()) {
          out_.push_back(std::move(s));
          return;
        }
        c_.expect_punct(':', "':' and a type, or end of line");
      } else {
        c_.expect_punct(':', "':' and a type, e.g. " + s.name + " : f32[2, ?]");
      }
      s.type_pos = pos(c_.peek());
      s.type = type(s.kind == StmtKind::constant ? nullptr : &s.scalar);
      s.has_type = true;
      if (s.kind == StmtKind::input) {
        if (c_.peek().is_ident("precision")) {
          s.precision_pos = pos(c_.peek());
          c_.next();
          c_.expect_punct('=', "'=' after precision");
          const Token& p = c_.peek();
          if (p.kind != TokKind::integer) c_.error_expected("an integer precision");
          if (!is_signed_int(s.type.dtype))
            Cursor::error_at(
                p, "precision applies only to signed integer inputs (i8, i16, i32, i64), not " +
                       std::string(dtype_name(s.type.dtype)));
          int bits = signed_bits(s.type.dtype);
          if (p.i < 1 || p.i > bits)
            Cursor::error_at(p, "precision " + p.text + " is out of range for " +
                                    std::string(dtype_name(s.type.dtype)) + "; expected 1.." +
                                    std::to_string(bits));
          s.type.precision = int(p.i);
          c_.next();
        }
        c_.expect_end("precision=P");
      } else if (s.kind == StmtKind::constant) {
        c_.expect_punct('=', "'=' and a literal ([...], fill(V) or load(\"file.npy\"))");
        ConstLiteral lit = parse_const_literal(c_, s.type, base_dir_);
        s.type = lit.type;
        s.value = std::move(lit.value);
        c_.expect_end();
      } else {
        c_.expect_end();
      }
    } else {
      std::string hint = closest_name(
          d.text, {".program", ".input", ".const", ".output", ".no_precision_check"});
      Cursor::error_at(d, "unknown directive " + d.describe() +
                              (hint.empty() ? "; expected .program, .input, .const, .output or "
                                              ".no_precision_check"
                                            : "; did you mean '" + hint +
                                                  "'? (directives: .program, .input, .const, "
                                                  ".output, .no_precision_check)"));
    }
    out_.push_back(std::move(s));
  }

  void instruction() {
    Stmt s;
    s.kind = StmtKind::instruction;
    s.pos = pos(c_.peek());
    // DST1, DST2 = OP ...   or   OP ...
    // An op name is never followed directly by ',' or '=': those mark a result list.
    quoted_ok_ = true;  // registers may be named by quoted text, like the declarations
    const TokKind first = c_.peek().kind;
    bool has_results = (first == TokKind::ident || first == TokKind::string) &&
                       (c_.peek(1).is_punct(',') || c_.peek(1).is_punct('='));
    if (has_results) {
      for (;;) {
        NameRef r;
        r.pos = pos(c_.peek());
        r.name = name_token("a result name");
        s.results.push_back(std::move(r));
        if (c_.accept_punct('=')) break;
        c_.expect_punct(',', "',' or '='");
      }
    }
    const Token& op = c_.peek();
    if (op.kind != TokKind::ident)
      c_.error_expected(has_results ? "an op name after '='"
                                    : "an op name, a label (name:) or a directive");
    s.op.name = op.text;
    s.op.pos = pos(op);
    c_.next();
    const OpInfo* info = find_op(s.op.name);
    if (!c_.at_end()) {
      for (;;) {
        const Token& t = c_.peek();
        if (t.kind == TokKind::ident && c_.peek(1).is_punct('=')) {
          AttrAst a;
          a.name = t.text;
          a.name_pos = pos(t);
          c_.next();
          c_.next();
          a.value_pos = pos(c_.peek());
          // Knowing a dtype is wanted turns `dtype=f33` into "unknown dtype" (not "quote it").
          int k = info ? info->attr_index(a.name) : -1;
          a.value = parse_attr_value(c_, 0,
                                     k >= 0 && info->attrs[std::size_t(k)].kind == AttrKind::dtype);
          s.attrs.push_back(std::move(a));
        } else if (t.kind == TokKind::ident || t.kind == TokKind::string) {
          if (!s.attrs.empty())
            Cursor::error_at(t, "argument " + t.describe() +
                                    " after attributes; arguments come first, then name=value");
          NameRef a;
          a.pos = pos(t);
          if (t.kind == TokKind::ident && t.text == "none")
            a.is_none = true;
          else
            a.name = name_token("an argument");
          if (a.is_none) c_.next();
          s.args.push_back(std::move(a));
        } else if (t.kind == TokKind::integer || t.kind == TokKind::floating) {
          if (!s.attrs.empty())
            Cursor::error_at(t, "argument " + t.describe() +
                                    " after attributes; arguments come first, then name=value");
          NameRef a;
          a.pos = pos(t);
          a.is_literal = true;
          a.literal = t.kind == TokKind::integer ? Scalar::from_int(t.i) : Scalar::from_float(t.f);
          c_.next();
          s.args.push_back(std::move(a));
        } else {
          c_.error_expected(s.attrs.empty() ? "an argument (a register name, a number or none) or name=value"
                                            : "an attribute name=value");
        }
        if (c_.at_end()) break;
        c_.expect_punct(',', "',' or end of line");
      }
    }
    out_.push_back(std::move(s));
  }

  Cursor& c_;
  bool quoted_ok_ = false;  // where a name may be written as a string: declarations, registers
  int line_;
  const std::string& base_dir_;
  std::vector<Stmt>& out_;
};

// After a syntax error on a line (already reported): what the line evidently declares or
// assigns, so that cross-line checks neither call those names unknown nor lose its place in
// the code. Works on the tokens before the error (a lexical error leaves only those).
void recover_line(const std::vector<Token>& t, int line, std::vector<Stmt>& out) {
  auto at = [&](std::size_t k) { return Pos{line, t[k].col}; };
  auto ident = [&](std::size_t k) { return k < t.size() && t[k].kind == TokKind::ident; };
  auto name = [&](std::size_t k) { return ident(k) && !is_reserved(t[k].text); };
  auto punct = [&](std::size_t k, char c) { return k < t.size() && t[k].is_punct(c); };
  if (t.empty() || t[0].kind == TokKind::end) return;
  if (t[0].kind == TokKind::directive) {
    // A broken .input/.const (or a misspelled directive) still names something; a broken
    // .output or .program defines nothing that is read.
    if (t[0].text != ".program" && t[0].text != ".output" && name(1)) {
      Stmt s;
      s.kind = StmtKind::broken;
      s.broken_decl = true;
      s.pos = at(0);
      s.name = t[1].text;
      s.name_pos = at(1);
      out.push_back(std::move(s));
    }
    return;
  }
  std::size_t i = 0;
  if (ident(0) && punct(1, ':')) {
    if (name(0)) {
      Stmt l;
      l.kind = StmtKind::label;
      l.pos = l.name_pos = at(0);
      l.name = t[0].text;
      out.push_back(std::move(l));
    }
    i = 2;
    if (i >= t.size() || t[i].kind == TokKind::end) return;
  }
  Stmt s;
  s.kind = StmtKind::broken;
  s.pos = at(i);
  if (ident(i) && (punct(i + 1, ',') || punct(i + 1, '='))) {
    while (ident(i)) {
      if (name(i)) s.results.push_back(NameRef{t[i].text, at(i), false, false, {}});
      ++i;
      if (!punct(i, ',')) break;
      ++i;
    }
    if (punct(i, '='))
      ++i;
    else
      i = t.size();  // the op is not where it should be
  }
  if (ident(i)) {
    s.op.name = t[i].text;
    s.op.pos = at(i);
  }
  // A broken jump or halt (or a line whose op is unknown) leaves the control flow unknown.
  s.flow_unknown =
      s.op.name.empty() || s.op.name == "jmp" || s.op.name == "br" || s.op.name == "halt" ||
      s.op.name == "trap";
  out.push_back(std::move(s));
}

}  // namespace

ParsedSource parse_source(std::string_view source, const std::string& base_dir, int max_errors) {
  ParsedSource out;
  std::size_t b = 0;
  while (b <= source.size()) {
    std::size_t e = source.find('\n', b);
    if (e == std::string_view::npos) e = source.size();
    std::string_view l = source.substr(b, e - b);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.lines.push_back(l);
    if (e == source.size()) break;
    b = e + 1;
  }
  if (source.empty()) out.lines.clear();

  std::vector<Token> tokens;
  for (std::size_t k = 0; k < out.lines.size(); ++k) {
    if (int(out.errors.size()) >= max_errors) {
      out.truncated = true;
      break;
    }
    int line = int(k) + 1;
    LexError lex_err;
    if (!lex_line(out.lines[k], tokens, lex_err)) {
      out.errors.push_back(SyntaxError{Pos{line, lex_err.col}, lex_err.message});
      recover_line(tokens, line, out.statements);
      continue;
    }
    Cursor c(tokens);
    std::size_t mark = out.statements.size();
    bool failed = true;
    try {
      LineParser(c, line, base_dir, out.statements).parse();
      failed = false;
    } catch (const ParseError& e) {
      out.errors.push_back(SyntaxError{Pos{line, e.col}, e.message});
    } catch (const Error& e) {
      // A tensor could not be built (e.g. too large for memory); report it at the line.
      out.errors.push_back(SyntaxError{Pos{line, 1}, e.message()});
    } catch (const std::bad_alloc&) {
      out.errors.push_back(
          SyntaxError{Pos{line, 1}, "out of memory while building this statement"});
    }
    if (failed) {
      out.statements.resize(mark);  // a label parsed before the error is recovered below
      recover_line(tokens, line, out.statements);
    }
  }
  return out;
}

}  // namespace mlvm::asm_detail
