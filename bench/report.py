"""The results table: printed to the terminal and written as Markdown for notes."""

import statistics


def fmt_time(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"


def fmt_bytes(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


class RowResult:
    """What one row measured; `status` is met / NOT MET / FAILED (results differ) / ERROR /
    SKIPPED (peer unavailable)."""

    def __init__(self, row, peer_name):
        self.row = row
        self.peer_name = peer_name
        self.mlvm = []        # seconds per run
        self.peer = []
        self.peak_bytes = 0
        self.allocated_bytes = 0  # most any timed mlvm run allocated (bound-output rows)
        self.status = ""
        self.detail = ""      # why FAILED / ERROR / SKIPPED
        self.ratio = None
        self.notes = []

    def median(self, side):
        return statistics.median(side) if side else None

    def cells(self):
        div, unit = self.row.per
        def both(side):
            if not side:
                return "—"
            return f"{fmt_time(statistics.median(side) / div)}{unit} ({fmt_time(min(side) / div)})"
        ratio = f"{self.ratio:.2f}x" if self.ratio is not None else "—"
        status = self.status + (f": {self.detail}" if self.detail else "")
        return [self.row.work, both(self.mlvm), self.peer_name, both(self.peer), ratio,
                self.row.target.text, status, "; ".join(self.notes)]


HEADER = ["work", "mlvm median (min)", "peer", "peer median (min)", "ratio (peer/mlvm)",
          "target", "result", "notes"]


def markdown_table(results):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in results:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in r.cells()) + " |")
    return "\n".join(lines)


def aligned_table(header, rows):
    """Plain-text columns: the header, a rule, then the rows, each column as wide as its widest cell."""
    rows = [header] + list(rows)
    widths = [max(len(row[k]) for row in rows) for k in range(len(header))]
    out = []
    for i, row in enumerate(rows):
        out.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def text_table(results):
    return aligned_table(HEADER, [r.cells() for r in results])


def summary(results):
    counts = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
