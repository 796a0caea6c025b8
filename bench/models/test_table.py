#!/usr/bin/python3
"""The whole-model benchmark's arithmetic and report, without any engine (ctest
bench.models_table): geometric means, target verdicts, the tables, and that results.md's other
sections survive a rewrite of the models section."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import table  # noqa: E402
from results_file import machine_kind, replace_section, section_name  # noqa: E402


def row(model, mlvm_ms, ort_ms, torch_ms=None, rss=(100, 200, 300), first=None):
    r = table.ModelResult(model, 1)
    r.times["mlvm"] = [mlvm_ms / 1e3] * 3
    r.times["ORT"] = [ort_ms / 1e3] * 3
    if torch_ms:
        r.times["torch"] = [torch_ms / 1e3, torch_ms / 1e3 * 2, torch_ms / 1e3 / 2]
    r.rss = dict(zip(table.ENGINES, (m << 20 for m in rss)))
    r.errors = {"mlvm": 1e-6, "ORT": 2e-6, "torch": 0.0}
    if first:
        r.first["mlvm"] = first
    return r


class TableTest(unittest.TestCase):
    def test_geomean(self):
        self.assertAlmostEqual(table.geomean([2.0, 0.5]), 1.0)
        self.assertAlmostEqual(table.geomean([4.0, 1.0, None]), 2.0)
        self.assertIsNone(table.geomean([]))

    def test_ratios_are_peer_over_mlvm(self):
        r = row("a", 10, 15, 20)
        self.assertAlmostEqual(r.ratio("ORT"), 1.5)
        self.assertAlmostEqual(r.ratio("torch"), 2.0)  # the median of the three
        r.status = "FAILED"
        self.assertIsNone(r.ratio("ORT"))

    def test_verdicts(self):
        rows = [row("resnet18", 10, 20, first=(0.3, 0.1, 0.05)), row("b", 10, 7, rss=(300, 200, 1))]
        got = {t.split(" ")[0] + t.split(" ")[1]: (m, ok) for t, m, ok in table.verdicts(rows)}
        geo = [v for t, v in got.items() if t.startswith("geometric")][0]
        self.assertTrue(geo[1])  # sqrt(2 * 0.7) = 1.18
        self.assertIn("1.18", geo[0])
        worst = [v for t, v in got.items() if t.startswith("no")][0]
        self.assertFalse(worst[1])  # 0.7 < 0.8
        self.assertIn("(b)", worst[0])
        rss = [v for t, v in got.items() if t.startswith("peak")][0]
        self.assertFalse(rss[1])
        self.assertIn("above: b", rss[0])
        first = [v for t, v in got.items() if t.startswith("resnet18")][0]
        self.assertTrue(first[1])

    def test_a_failed_model_fails_the_geomean_target(self):
        bad = row("c", 1, 100)
        bad.status, bad.detail = "FAILED", "mlvm max |diff| 1"
        verdicts = table.verdicts([row("a", 10, 20), bad])
        self.assertFalse(verdicts[0][2])
        self.assertIn("1 of 2", verdicts[0][1])
        self.assertIn("**FAILED**: mlvm max |diff| 1", table.cells(bad)[-1])

    def test_markdown(self):
        text = table.markdown_section("header line", {1: [row("a", 10, 20)], 2: [row("a", 6, 12)]})
        self.assertIn("### 1 thread\n", text)
        self.assertIn("### 2 threads\n", text)
        self.assertIn("| a | 10 (10) | 20 | — | 2.00 | — | 100 / 200 / 300 |", text)
        self.assertEqual(table.markdown_table([row("a", 10, 20)]).count("\n"), 2)

    def test_results_file_keeps_other_sections(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.md")
            replace_section(path, "kernels", "kernel table")
            replace_section(path, "models", "first")
            replace_section(path, "models", "second")
            replace_section(path, "kernels", "kernel table 2")
            with open(path) as f:
                text = f.read()
        self.assertTrue(text.startswith("# mlvm benchmark results\n"))
        self.assertIn("kernel table 2", text)
        self.assertIn("second", text)
        self.assertNotIn("first", text)
        self.assertLess(text.index("kernel table 2"), text.index("second"))


    def test_sections_per_machine_kind(self):
        with tempfile.TemporaryDirectory() as d:
            avx2, avx512 = os.path.join(d, "avx2"), os.path.join(d, "avx512")
            with open(avx2, "w") as f:
                f.write("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: sse2 fma avx avx2\n")
            with open(avx512, "w") as f:
                f.write("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: sse2 fma avx2 avx512f avx512bw\n"
                        "processor\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: sse2 fma avx2 avx512f avx512bw\n")
            self.assertEqual(machine_kind(avx2), "AMD EPYC, AVX2")
            self.assertEqual(machine_kind(avx512), "AMD EPYC, AVX-512")
            self.assertEqual(machine_kind(os.path.join(d, "missing")), "unknown CPU, SSE2")
            path = os.path.join(d, "results.md")
            replace_section(path, section_name("models", machine_kind(avx2)), "avx2 table")
            replace_section(path, section_name("models", machine_kind(avx512)), "avx512 table")
            replace_section(path, section_name("models", machine_kind(avx2)), "avx2 table again")
            with open(path) as f:
                text = f.read()
        self.assertIn("<!-- results:models:amd-epyc-avx2 -->\navx2 table again\n", text)
        self.assertIn("<!-- results:models:amd-epyc-avx-512 -->\navx512 table\n", text)
        self.assertNotIn("avx2 table\n", text)
        self.assertIn("## Whole models, AMD EPYC, AVX2\n",
                      table.markdown_section("h", {1: [row("a", 10, 20)]}, "AMD EPYC, AVX2"))


if __name__ == "__main__":
    unittest.main()
