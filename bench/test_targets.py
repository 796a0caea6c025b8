#!/usr/bin/python3
"""The kernel benchmark's target verdicts, without any engine (ctest bench.targets): the sign
test behind the bound-output row against hand-computed binomial tails, and that row's verdict
on made-up paired runs (equal within noise, really slower, allocating)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import BoundOutput, Measured, sign_test_p  # noqa: E402


def measured(bound, unbound, allocated=0):
    med = lambda xs: sorted(xs)[len(xs) // 2]
    return Measured(med(bound), med(unbound), 0, allocated_bytes=allocated, mlvm_runs=bound,
                    peer_runs=unbound)


class SignTestTest(unittest.TestCase):
    def test_binomial_tails(self):
        # n = 10: P(X >= 9) = (10 + 1) / 1024, P(X >= 8) = (45 + 10 + 1) / 1024.
        self.assertAlmostEqual(sign_test_p([2] * 9 + [1], [1] * 9 + [2]), 11 / 1024)
        self.assertAlmostEqual(sign_test_p([2] * 8 + [1] * 2, [1] * 8 + [2] * 2), 56 / 1024)
        self.assertAlmostEqual(sign_test_p([2] * 10, [1] * 10), 1 / 1024)
        self.assertAlmostEqual(sign_test_p([1] * 10, [2] * 10), 1.0)

    def test_ties_count_for_neither(self):
        # 3 ties drop out: 7 pairs left, all slower: 1 / 128.
        self.assertAlmostEqual(sign_test_p([1] * 3 + [2] * 7, [1] * 3 + [1] * 7), 1 / 128)
        self.assertEqual(sign_test_p([1, 1], [1, 1]), 1.0)


class BoundOutputTest(unittest.TestCase):
    target = BoundOutput(1.0)

    def test_equal_within_noise_is_met(self):
        # Medians 1.03 vs 1.00 (ratio 0.97), but the bound side is slower in only 7 of 10 pairs
        # (p = 176 / 1024).
        bound = [1.03, 0.98, 1.05, 0.99, 1.04, 1.03, 0.97, 1.06, 1.03, 1.01]
        unbound = [1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00]
        m = measured(bound, unbound)
        self.assertLess(m.ratio, 1.0)
        self.assertTrue(self.target.met(m))

    def test_slower_in_nearly_every_pair_is_not_met(self):
        bound = [1.03, 1.02, 1.05, 1.01, 1.04, 1.03, 1.02, 1.06, 1.03, 0.99]
        unbound = [1.00] * 10
        self.assertFalse(self.target.met(measured(bound, unbound)))

    def test_a_copy_of_the_output_is_not_met(self):
        self.assertFalse(self.target.met(measured([1.5] * 10, [1.0] * 10)))

    def test_faster_is_met_and_allocating_never_is(self):
        self.assertTrue(self.target.met(measured([0.9] * 10, [1.0] * 10)))
        self.assertFalse(self.target.met(measured([0.9] * 10, [1.0] * 10, allocated=64)))


if __name__ == "__main__":
    unittest.main()
