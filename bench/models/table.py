"""The whole-model benchmark's results: one row per model and thread count, a Markdown table per
thread count, the geometric means and the performance.md targets (bench/models/driver.py).
Kept free of the engines so that test_table.py checks it without torch or node."""

import math
import statistics

from report import aligned_table  # bench/report.py (bench/ is on sys.path: driver.py, test_table.py)

ENGINES = ("mlvm", "ORT", "torch")
# performance.md, "Whole models".
GEOMEAN_TARGET = 1.0     # geometric mean of ORT time / mlvm time, at each thread count
WORST_TARGET = 0.8       # no model's ORT/mlvm below this
FIRST_RUN_MODEL = "resnet18"
FIRST_RUN_TARGET = 0.5   # seconds


class ModelResult:
    """What one model measured at one thread count. status: "ok", "FAILED" (an output did not
    match torch's, so nothing was timed) or "ERROR" (an engine could not load or run it)."""

    def __init__(self, model, threads):
        self.model = model
        self.threads = threads
        self.status = "ok"
        self.detail = ""
        self.times = {e: [] for e in ENGINES}  # seconds per timed run
        self.rss = {}                          # engine -> peak RSS bytes (VmHWM)
        self.first = {}                        # "mlvm"/"ORT" -> (process s, load s, first run s)
        self.errors = {}                       # engine -> max |got - torch| / max |torch|

    def median(self, engine):
        t = self.times.get(engine)
        return statistics.median(t) if t else None

    def ratio(self, peer):
        """peer median / mlvm median: above 1 mlvm is faster."""
        m, p = self.median("mlvm"), self.median(peer)
        return p / m if m and p and self.status == "ok" else None


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt_ms(seconds):
    if seconds is None:
        return "—"
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def fmt_mib(n):
    return "—" if n is None else f"{n / (1 << 20):.0f}"


def fmt_ratio(r):
    return "—" if r is None else f"{r:.2f}"


def _first(r, engine):
    f = r.first.get(engine)
    if not f:
        return "—"
    return f"{f[0] * 1e3:.0f} ({f[1] * 1e3:.0f} + {f[2] * 1e3:.0f})"


HEADER = ["model", "mlvm ms (min)", "ORT ms", "torch ms", "ORT/mlvm", "torch/mlvm",
          "peak RSS MiB mlvm / ORT / torch", "first run ms, mlvm", "first run ms, ORT", "check"]


def cells(r):
    mlvm = "—" if not r.times["mlvm"] else f"{fmt_ms(r.median('mlvm'))} ({fmt_ms(min(r.times['mlvm']))})"
    if r.status == "ok":
        check = "max err " + ", ".join(f"{e} {r.errors[e]:.1e}" for e in ENGINES if e in r.errors)
    else:
        check = f"**{r.status}**: {r.detail}"
    return [r.model, mlvm, fmt_ms(r.median("ORT")), fmt_ms(r.median("torch")),
            fmt_ratio(r.ratio("ORT")), fmt_ratio(r.ratio("torch")),
            " / ".join(fmt_mib(r.rss.get(e)) for e in ENGINES),
            _first(r, "mlvm"), _first(r, "ORT"), check]


def markdown_table(results):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in results:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |")
    return "\n".join(lines)


def text_table(results):
    return aligned_table(HEADER, [cells(r) for r in results])


def verdicts(results):
    """The performance.md targets at one thread count: [(target text, measured text, met)]."""
    ok = [r for r in results if r.status == "ok"]
    out = []
    g = geomean([r.ratio("ORT") for r in ok])
    complete = len(ok) == len(results)
    out.append((f"geometric mean of ORT/mlvm ≥ {GEOMEAN_TARGET:g}",
                "—" if g is None else f"{g:.2f} over {len(ok)} of {len(results)} models",
                g is not None and g >= GEOMEAN_TARGET and complete))
    ratios = [(r.ratio("ORT"), r.model) for r in ok if r.ratio("ORT")]
    if ratios:
        worst, name = min(ratios)
        out.append((f"no model's ORT/mlvm below {WORST_TARGET:g}", f"lowest {worst:.2f} ({name})",
                    worst >= WORST_TARGET and complete))
    over = [r.model for r in results if r.rss.get("mlvm") and r.rss.get("ORT")
            and r.rss["mlvm"] > r.rss["ORT"]]
    measured = [r for r in results if r.rss.get("mlvm") and r.rss.get("ORT")]
    if measured:
        out.append(("peak RSS ≤ ORT's", f"{len(measured) - len(over)} of {len(measured)} models"
                    + (f"; above: {', '.join(over)}" if over else ""), not over))
    for r in results:
        if r.model == FIRST_RUN_MODEL and r.first.get("mlvm"):
            wall = r.first["mlvm"][0]
            out.append((f"{FIRST_RUN_MODEL} first run < {FIRST_RUN_TARGET:g} s (fresh process to "
                        "first output)", f"{wall:.3f} s", wall < FIRST_RUN_TARGET))
    gt = geomean([r.ratio("torch") for r in ok])
    if gt is not None:
        out.append(("(for reference) geometric mean of torch/mlvm", f"{gt:.2f}", None))
    return out


def verdict_lines(results):
    marks = {True: "met", False: "NOT MET", None: ""}
    return [f"- {t}: {m}" + (f" — **{marks[ok]}**" if ok is not None else "")
            for t, m, ok in verdicts(results)]


NOTES = """Times are medians of the run call alone, timed inside each engine's own long-lived
process (mlvm: `Session::run` in `mlvm-bench --serve`; ONNX Runtime: the awaited
`session.run` in node, which includes onnxruntime-node's copy of the output into a JS array;
torch: the forward call under `torch.inference_mode()`), iterations interleaved with the
order rotating. Ratios are peer median / mlvm median: above 1 mlvm is faster. Peak RSS is
each server process's `VmHWM` at the end, so it counts the whole process: node itself
(about 40-50 MiB) for ONNX Runtime, the Python interpreter and all of torch for torch. First
run: a fresh process per engine, from launch to its first output ready (reading the input
included), then in brackets the in-process parts: mlvm's `Program::load_file` (read,
import, verify, plan) plus `Session` construction + the first `Session::run`; ONNX
Runtime's `InferenceSession.create` + the first `session.run`. Outputs are checked against
torch's before anything is timed (|got - torch| ≤ 1e-3·|torch| + 1e-3·max|torch|); "max err"
is the largest |got - torch| / max|torch|. A model that fails the check is not timed."""


def markdown_section(header, by_threads, kind=""):
    """The "Whole models" section of results.md for machines of `kind` (results_file.machine_kind):
    `by_threads` maps a thread count to its rows."""
    parts = ["## Whole models" + (f", {kind}" if kind else ""), "", header, ""]
    for threads, results in sorted(by_threads.items()):
        parts += [f"### {threads} thread{'s' if threads > 1 else ''}", "",
                  markdown_table(results), "", *verdict_lines(results), ""]
    parts += ["Notes: " + NOTES.replace("\n", " "), ""]
    return "\n".join(parts)


def text_report(by_threads):
    parts = []
    for threads, results in sorted(by_threads.items()):
        parts += [f"== {threads} thread{'s' if threads > 1 else ''} ==", text_table(results),
                  *verdict_lines(results), ""]
    return "\n".join(parts)
