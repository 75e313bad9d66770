"""Wall time of one test with the reference implementation (numpy), n = 50 cases, 3 head + 8 history.

nice -n 19 python3 timing.py  -> results/timing.json
"""
import json
import os
import time

import numpy as np

import strat_test as st

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(0)
p = rng.beta(0.3, 0.3, 50)
binary = [((rng.random(3) < p[i]) * 1.0, (rng.random(8) < p[i]) * 1.0) for i in range(50)]
cont = [(rng.normal(size=3), rng.normal(size=8)) for _ in range(50)]
out = {}
for name, cases, stat in (("binary_mod", binary, "mod"), ("binary_cmh", binary, "cmh"), ("cont_sz", cont, "sz")):
    t = time.perf_counter()
    r = st.strat_perm_test(cases, stat=stat, B=10_000)
    out[name] = dict(method=r["method"], p=r["p"], seconds=time.perf_counter() - t)
t = time.perf_counter()
st.bootstrap_ci(cont, B=10_000)
out["bootstrap_ci_B10000"] = dict(seconds=time.perf_counter() - t)
print(json.dumps(out, indent=1))
json.dump(out, open(os.path.join(HERE, "results", "timing.json"), "w"), indent=1)
