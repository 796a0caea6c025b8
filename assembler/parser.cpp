#include "assembler/parser.hpp"

#include "assembler/cursor.hpp"
#include "assembler/lexer.hpp"
#include "assembler/literal.hpp"

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
    if (t.kind != TokKind::ident) c_.error_expected(what);
    if (is_reserved(t.text))
      Cursor::error_at(t, "'" + t.text + "' is a keyword and cannot be used as a name");
    return c_.next().text;
  }

  TensorType type() {
    const Token& dt_tok = c_.peek();
    if (dt_tok.kind != TokKind::ident)
      c_.error_expected(std::string("a type such as f32[2, ?] (dtypes: ") + kDtypeList + ")");
    auto dt = dtype_from_name(dt_tok.text);
    if (!dt)
      Cursor::error_at(dt_tok,
                       "unknown dtype " + dt_tok.describe() + "; expected one of " + kDtypeList);
    c_.next();
    const Token& open = c_.expect_punct('[', "'[' and the dims after the dtype, e.g. f32[2, ?]");
    TensorType t;
    t.dtype = *dt;
    if (c_.peek().is_punct(']'))
      Cursor::error_at(c_.peek(), "a type needs at least one dim; a scalar is written " +
                                      std::string(dtype_name(*dt)) + "[1]");
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
    } else if (d.text == ".input" || d.text == ".const" || d.text == ".output") {
      s.kind = d.text == ".input"   ? StmtKind::input
               : d.text == ".const" ? StmtKind::constant
                                    : StmtKind::output;
      s.name_pos = pos(c_.peek());
      s.name = name_token(d.text == ".input"   ? "an input name"
                          : d.text == ".const" ? "a constant name"
                                               : "an output name");
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
      s.type = type();
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
      Cursor::error_at(d, "unknown directive " + d.describe() +
                              "; expected .program, .input, .const or .output");
    }
    out_.push_back(std::move(s));
  }

  void instruction() {
    Stmt s;
    s.kind = StmtKind::instruction;
    s.pos = pos(c_.peek());
    // DST1, DST2 = OP ...   or   OP ...
    // An op name is never followed directly by ',' or '=': those mark a result list.
    bool has_results =
        c_.peek().kind == TokKind::ident && (c_.peek(1).is_punct(',') || c_.peek(1).is_punct('='));
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
          a.value = parse_attr_value(c_);
          s.attrs.push_back(std::move(a));
        } else if (t.kind == TokKind::ident) {
          if (!s.attrs.empty())
            Cursor::error_at(t, "argument " + t.describe() +
                                    " after attributes; arguments come first, then name=value");
          NameRef a;
          a.pos = pos(t);
          if (t.text == "none")
            a.is_none = true;
          else
            a.name = name_token("an argument");
          if (a.is_none) c_.next();
          s.args.push_back(std::move(a));
        } else {
          c_.error_expected(s.attrs.empty() ? "an argument (a register name or none) or name=value"
                                            : "an attribute name=value");
        }
        if (c_.at_end()) break;
        c_.expect_punct(',', "',' or end of line");
      }
    }
    out_.push_back(std::move(s));
  }

  Cursor& c_;
  int line_;
  const std::string& base_dir_;
  std::vector<Stmt>& out_;
};

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
    if (int(out.errors.size()) >= max_errors) break;
    int line = int(k) + 1;
    LexError lex_err;
    if (!lex_line(out.lines[k], tokens, lex_err)) {
      out.errors.push_back(SyntaxError{Pos{line, lex_err.col}, lex_err.message});
      continue;
    }
    Cursor c(tokens);
    std::size_t mark = out.statements.size();
    try {
      LineParser(c, line, base_dir, out.statements).parse();
    } catch (const ParseError& e) {
      out.statements.resize(mark);  // a label parsed before the error stays out too
      out.errors.push_back(SyntaxError{Pos{line, e.col}, e.message});
    } catch (const Error& e) {
      // A tensor could not be built (e.g. too large for memory); report it at the line.
      out.statements.resize(mark);
      out.errors.push_back(SyntaxError{Pos{line, 1}, e.message()});
    } catch (const std::bad_alloc&) {
      out.statements.resize(mark);
      out.errors.push_back(
          SyntaxError{Pos{line, 1}, "out of memory while building this statement"});
    }
  }
  return out;
}

}  // namespace mlvm::asm_detail
