#!/usr/bin/python3
# Writes the small .npy fixtures the assembler tests load (run: /usr/bin/python3 gen_npy.py).
# Deterministic: a fixed seed, so re-running gives the same bytes.
import numpy as np

rng = np.random.default_rng(20240611)
np.save('w1.npy', rng.standard_normal((32, 64)).astype(np.float32))
np.save('b1.npy', rng.standard_normal((32,)).astype(np.float32))
np.save('w2.npy', rng.standard_normal((10, 32)).astype(np.float32))
# Integer data with a known precision: max |v| = 100 -> precision 8.
np.save('table_i32.npy', np.array([[-100, 3, 7], [0, 99, -1]], dtype=np.int32))
# Fortran order and a 0-d array (loads as shape [1]).
np.save('fortran_f64.npy', np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
np.save('scalar_i8.npy', np.array(-5, dtype=np.int8))
np.save('bool3.npy', np.array([True, False, True]))
