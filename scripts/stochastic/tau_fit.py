"""Profile likelihood of the tau-calibrated 0/1 model's Beta concentration.

nice -n 19 python3 tau_fit.py  -> results/tau_fit.json
"""
import json
import os

from scipy import stats

import simlib

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    prof = {}
    for conc in (1, 2, 4, 8, 16, 32, 64, 128, 1000):
        m = simlib.fit_tau_model(conc=float(conc))
        prof[conc] = dict(nll=m["nll"], pi0=m["pi0"], pi1=m["pi1"], a=m["a"], b=m["b"])
        print(conc, round(m["nll"], 4), round(m["pi0"], 3), round(m["pi1"], 3), round(m["a"], 3), round(m["b"], 3))
    best = min(prof, key=lambda c: prof[c]["nll"])
    used = simlib.fit_tau_model()
    q = stats.beta(used["a"], used["b"]).ppf([0.05, 0.95]).tolist()
    out = dict(profile=prof, best_conc_on_grid=best, used=used, flipper_rate_5_95=q)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    json.dump(out, open(os.path.join(HERE, "results", "tau_fit.json"), "w"), indent=1)
    print("best on grid", best, "used conc 8, flipper 5-95%", q)
