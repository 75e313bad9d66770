#!/usr/bin/env python3
"""Reference values for `calibrate`'s agreement statistics, from published
implementations: scikit-learn (Cohen's kappa, confusion matrix) and the
`krippendorff` package (Krippendorff's alpha, nominal and ordinal).

    pip install scikit-learn krippendorff
    python3 scripts/calibration_reference.py   # rewrites tests/fixtures/calibration/reference.json

The label sets are drawn with a seeded numpy generator and stored in the
fixture, so the Rust test recomputes exactly these inputs
(tests/integration/judge/calibrate.rs).
"""

import importlib.metadata
import json
import pathlib

import krippendorff
import numpy as np
import sklearn
from sklearn.metrics import cohen_kappa_score, confusion_matrix

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests/fixtures/calibration/reference.json"


def noisy(rng, human, lo, hi, p_exact, spread):
    """A judge that agrees with probability p_exact, else is off by up to `spread`."""
    judge = []
    for h in human:
        if rng.random() < p_exact:
            judge.append(int(h))
        else:
            off = int(rng.integers(1, spread + 1)) * (1 if rng.random() < 0.5 else -1)
            judge.append(int(min(hi, max(lo, h + off))))
    return judge


def case(name, scale, lo, hi, ordinal, human, judge):
    domain = list(range(lo, hi + 1))
    level = "ordinal" if ordinal else "nominal"
    alpha = krippendorff.alpha(reliability_data=[human, judge], level_of_measurement=level, value_domain=domain)
    return {
        "name": name,
        "scale": scale,
        "ordinal": ordinal,
        "human": human,
        "judge": judge,
        "agreement": float(np.mean(np.array(human) == np.array(judge))),
        "cohen_kappa": float(cohen_kappa_score(human, judge)),
        "krippendorff_alpha": float(alpha),
        "confusion": confusion_matrix(human, judge, labels=domain).tolist(),
    }


def main():
    rng = np.random.default_rng(20250611)
    cases = []
    # Checkpoint verdicts: 0 = FAIL, 1 = PARTIAL, 2 = PASS (nominal).
    human = [int(x) for x in rng.choice(3, size=40, p=[0.3, 0.2, 0.5])]
    cases.append(case("verdicts_good_judge", "verdicts", 0, 2, False, human, noisy(rng, human, 0, 2, 0.85, 2)))
    human = [int(x) for x in rng.choice(3, size=60, p=[0.1, 0.1, 0.8])]
    cases.append(case("verdicts_skewed", "verdicts", 0, 2, False, human, noisy(rng, human, 0, 2, 0.7, 2)))
    human = [int(x) for x in rng.choice(3, size=30)]
    cases.append(case("verdicts_random_judge", "verdicts", 0, 2, False, human, [int(x) for x in rng.choice(3, size=30)]))
    # Step scores 1-5 (ordinal).
    human = [int(x) for x in rng.integers(1, 6, size=50)]
    cases.append(case("steps_close", "1-5", 1, 5, True, human, noisy(rng, human, 1, 5, 0.6, 1)))
    human = [int(x) for x in rng.integers(1, 6, size=50)]
    cases.append(case("steps_far", "1-5", 1, 5, True, human, noisy(rng, human, 1, 5, 0.6, 4)))
    human = [int(x) for x in rng.choice([3, 4, 5], size=35, p=[0.2, 0.5, 0.3])]
    cases.append(case("steps_narrow", "1-5", 1, 5, True, human, noisy(rng, human, 1, 5, 0.5, 1)))
    # Trace-judge scale 0-3 (ordinal).
    human = [int(x) for x in rng.integers(0, 4, size=45)]
    cases.append(case("gpa_0_3", "0-3", 0, 3, True, human, noisy(rng, human, 0, 3, 0.65, 2)))
    doc = {
        "generator": "scripts/calibration_reference.py",
        "versions": {"scikit-learn": sklearn.__version__, "krippendorff": importlib.metadata.version("krippendorff"), "numpy": np.__version__},
        "cases": cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
