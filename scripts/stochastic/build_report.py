"""Builds REPORT.md from REPORT.src.md: every line `@@TABLE name@@` is replaced by a table
computed here from the JSON files in results/ (so that no number in the report is typed by hand).

nice -n 19 python3 build_report.py
"""

from __future__ import annotations

import json
import math
import os

from make_tables import derive_sz

HERE = os.path.dirname(os.path.abspath(__file__))
RES = os.path.join(HERE, "results")
CELLS = [(n, m, r) for n in (20, 50, 100) for m in (1, 2, 3) for r in (1, 3, 8)]


LAB = {"binary|tau": "0/1 tau", "binary|beta": "0/1 Beta", "cont|mix": "continuous"}


def J(name):
    return json.load(open(os.path.join(RES, name)))


def f2(x, d=3):
    return f"{x[0]:.{d}f} / {x[1]:.{d}f}"


def size_chosen():
    d = derive_sz(J("null_power.json"))
    R = d["meta"]["reps_null"]
    L = [f"Rejection rate under H0 at alpha 0.05 / 0.01, {R} replicates per cell "
         f"(MC SE {math.sqrt(.05 * .95 / R):.4f} at 0.05, {math.sqrt(.01 * .99 / R):.4f} at 0.01). "
         "`old` = today's 1-vs-1 sign-flip test on the same replicates.", "",
         "| n | m | r | 0/1 tau: old | 0/1 tau: **mod** | 0/1 Beta: old | 0/1 Beta: **mod** | cont: old | cont: **sz** |",
         "|---:|---:|---:|---|---|---|---|---|---|"]
    agg = {k: [0.0, 0.0, 0.0, 0.0] for k in ("t_old", "t", "b_old", "b", "c_old", "c")}
    for n, m, r in CELLS:
        t = d[f"binary|tau|{n}|{m}|{r}|null"]["rej"]
        b = d[f"binary|beta|{n}|{m}|{r}|null"]["rej"]
        c = d[f"cont|mix|{n}|{m}|{r}|null"]["rej"]
        vals = dict(t_old=t["old"], t=t["mod"], b_old=b["old"], b=b["mod"], c_old=c["old"], c=c["sz"])
        for k, v in vals.items():
            agg[k][0] = max(agg[k][0], v[0])
            agg[k][1] = max(agg[k][1], v[1])
            agg[k][2] += v[0] / len(CELLS)
            agg[k][3] += v[1] / len(CELLS)
        L.append(f"| {n} | {m} | {r} | " + " | ".join(f2(v, 4) for v in vals.values()) + " |")
    L.append("| **max** | | | " + " | ".join(f2(agg[k][:2], 4) for k in agg) + " |")
    L.append("| **mean** | | | " + " | ".join(f2(agg[k][2:], 4) for k in agg) + " |")
    return "\n".join(L)


def size_candidates():
    d = derive_sz(J("null_power.json"))
    L = ["Max / mean over the 27 (n, m, r) cells of the null rejection rate at alpha 0.05 (and 0.01).", "",
         "| data | statistic | max at 0.05 | mean at 0.05 | max at 0.01 | mean at 0.01 |", "|---|---|---:|---:|---:|---:|"]
    for model, stats in (("binary|tau", ["old", "cmh", "zperm", "ivperm", "mod", "modiv"]),
                         ("binary|beta", ["old", "cmh", "zperm", "ivperm", "mod", "modiv"]),
                         ("cont|mix", ["old", "diff", "zperm", "ivperm", "mod", "mod8", "modiv", "sz"])):
        for s in stats:
            v = [d[f"{model}|{n}|{m}|{r}|null"]["rej"][s] for n, m, r in CELLS]
            L.append(f"| {LAB[model]} | {s} | {max(x[0] for x in v):.4f} | {sum(x[0] for x in v) / len(v):.4f} | "
                     f"{max(x[1] for x in v):.4f} | {sum(x[1] for x in v) / len(v):.4f} |")
    return "\n".join(L)


def confirm():
    d = J("null_confirm.json")
    L = [f"The null cells where the chosen statistic was highest in the main run, re-run with "
         f"{d['meta']['R']} fresh replicates (MC SE {math.sqrt(.05 * .95 / d['meta']['R']):.4f} at 0.05, "
         f"{math.sqrt(.01 * .99 / d['meta']['R']):.4f} at 0.01).", "",
         "| cell (data, n, m, r) | statistic | main run | re-run (20,000) |", "|---|---|---|---|"]
    for k, v in d.items():
        if k == "meta":
            continue
        kind, model, n, m, r, _ = k.split("|")
        L.append(f"| {LAB[kind + '|' + model]}, {n}, {m}, {r} | {v.get('stat', 'mod')} | {f2(v['main_run'], 4)} | {f2(v['confirm'], 4)} |")
    return "\n".join(L)


def power_chosen(n=50):
    d = derive_sz(J("null_power.json"))
    R = d["meta"]["reps_power"]
    cols = [("binary|tau", "mult10", "mod"), ("binary|tau", "mult25", "mod"), ("binary|tau", "break20", "mod"),
            ("binary|beta", "mult25", "mod"), ("binary|beta", "break20", "mod"),
            ("cont|mix", "shift03", "sz"), ("cont|mix", "shift05", "sz"), ("cont|mix", "rel05", "sz")]
    L = [f"n = {n} cases; power at alpha 0.05 / 0.01 ({R} replicates per cell, SE <= "
         f"{math.sqrt(.25 / R):.3f}). First row: today's test (1 head trial vs 1 baseline trial); the other rows: "
         "the stratified test with the chosen statistic (`mod` for 0/1, `sz` for continuous).", "",
         "| design | " + " | ".join(f"{m.split('|')[1]} {s}" for m, s, _ in cols) + " |",
         "|---|" + "---|" * len(cols)]
    old = [d[f"{m}|{n}|1|1|{s}"]["rej"]["old"] for m, s, _ in cols]
    L.append("| old (1 vs 1) | " + " | ".join(f2(v) for v in old) + " |")
    for _, m_, r_ in [c for c in CELLS if c[0] == n]:
        vals = [d[f"{m}|{n}|{m_}|{r_}|{s}"]["rej"][st] for m, s, st in cols]
        L.append(f"| m = {m_}, r = {r_} | " + " | ".join(f2(v) for v in vals) + " |")
    return "\n".join(L)


def power_candidates():
    d = derive_sz(J("null_power.json"))
    L = ["Power at alpha 0.05 of every candidate, n = 50 (the full tables for n = 20, 50, 100 and alpha 0.01 "
         "are in results/null_power.md).", ""]
    for model, scen, stats in (("binary|tau", "mult25", ["old", "cmh", "zperm", "ivperm", "mod", "modiv"]),
                               ("binary|tau", "break20", ["old", "cmh", "zperm", "ivperm", "mod", "modiv"]),
                               ("binary|beta", "break20", ["old", "cmh", "zperm", "ivperm", "mod", "modiv"]),
                               ("cont|mix", "shift03", ["old", "diff", "zperm", "ivperm", "mod", "mod8", "modiv", "sz"]),
                               ("cont|mix", "rel05", ["old", "diff", "zperm", "ivperm", "mod", "mod8", "modiv", "sz"])):
        L += [f"**{LAB[model]}, {scen}**", "", "| m | r | " + " | ".join(stats) + " |", "|---:|---:|" + "---:|" * len(stats)]
        for n, m, r in CELLS:
            if n != 50:
                continue
            e = d[f"{model}|{n}|{m}|{r}|{scen}"]["rej"]
            L.append(f"| {m} | {r} | " + " | ".join(f"{e[s][0]:.3f}" for s in stats) + " |")
        L.append("")
    return "\n".join(L)


def ragged():
    d = J("null_power.json")
    L = ["n = 50, history depth r_i in {1, 3, 8} (a third of the cases each), alpha 0.05 / 0.01; "
         "null rows 4,000 replicates, power rows 2,000.", "",
         "| data | m | scenario | old | diff | cmh | zperm | mod | sz |", "|---|---:|---|---|---|---|---|---|---|"]
    for kind in ("binary|tau", "cont|mix"):
        for m in (1, 3):
            for scen in (["null", "mult25", "break20"] if kind.startswith("binary") else ["null", "shift03", "rel05"]):
                e = d[f"{kind}|50|{m}|ragged|{scen}"]["rej"]
                dd = 4 if scen == "null" else 3
                L.append(f"| {LAB[kind]} | {m} | {scen} | " + " | ".join(f2(e[s], dd) if s in e else "-" for s in
                                                                   ("old", "diff", "cmh", "zperm", "mod", "sz")) + " |")
    return "\n".join(L)


def explore():
    return open(os.path.join(RES, "explore.md")).read().split("\n", 4)[4].strip()


def adaptive(n=50):
    d = J("adaptive.json")
    k = d["meta"]["k"]
    L = [f"k = {k} (first trial + up to {k - 1} re-runs), B = {d['meta']['B']}. Null rows: "
         f"{d['meta']['reps_null']} replicates ({d['meta']['reps_null_n100']} at n = 100); power rows: "
         f"{d['meta']['reps_power']}. Rates at alpha 0.05 / 0.01; `trials` = mean head trials per case.", ""]
    for kind, model, stat, scens, rules in (
            ("binary", "tau", "mod", ["null", "mult25", "break20"], ["nonconstant", "minority1", "below_mean", "below_min"]),
            ("binary", "beta", "mod", ["null", "mult25"], ["nonconstant", "minority1", "below_mean", "below_min"]),
            ("cont", "mix", "sz", ["null", "shift03", "shift05"], ["below_mean", "below_min"])):
        for r in (1, 3, 8):
            keys = [f"{kind}|{model}|{n}|{r}|{s}|{stat}" for s in scens]
            if not all(kk in d for kk in keys):
                continue
            L += [f"**{kind} {model}, n = {n}, r = {r}, statistic `{stat}`**", "",
                  "| design | " + " | ".join(f"{s}: rate | {s}: trials" for s in scens) + " |",
                  "|---|" + "---|---:|" * len(scens)]

            def row(label, key_rej, trials_of):
                cells = []
                for kk, s in zip(keys, scens):
                    dd = 4 if s == "null" else 3
                    cells.append(f2(d[kk]["rej"][key_rej], dd))
                    cells.append(trials_of(d[kk]))
                L.append(f"| {label} | " + " | ".join(cells) + " |")

            row("fixed m = 1", "fixed1", lambda e: "1")
            row(f"fixed m = {k}", "fixedk", lambda e: str(k))
            for rl in rules:
                for v in ("selective", "split", "naive"):
                    lab = f"{rl}: {v}" + (" (invalid)" if v == "naive" else "")
                    row(lab, f"{rl}|{v}", lambda e, rl=rl: f"{e['trials'][rl]:.2f}")
            L.append("")
    return "\n".join(L)


def adaptive_size():
    d = J("adaptive.json")
    L = ["Null rejection rate of the adaptive designs over every n (20, 50, 100) and r (1, 3, 8): max over cells "
         "(alpha 0.05 / 0.01).", "",
         "| data | rule | selective | split | naive (invalid) | trials/case (mean over cells) |", "|---|---|---|---|---|---:|"]
    for kind, model, stat, rules in (("binary", "tau", "mod", ["nonconstant", "minority1", "below_mean", "below_min"]),
                                     ("binary", "beta", "mod", ["nonconstant", "minority1", "below_mean", "below_min"]),
                                     ("cont", "mix", "sz", ["below_mean", "below_min"])):
        keys = [kk for kk in d if kk.startswith(f"{kind}|{model}|") and kk.endswith(f"|null|{stat}")]
        if not keys:
            continue
        for rl in rules:
            mx = {v: [max(d[kk]["rej"][f"{rl}|{v}"][i] for kk in keys) for i in (0, 1)] for v in ("selective", "split", "naive")}
            tr = sum(d[kk]["trials"][rl] for kk in keys) / len(keys)
            L.append(f"| {kind} {model} ({len(keys)} cells) | {rl} | {f2(mx['selective'], 4)} | {f2(mx['split'], 4)} | "
                     f"{f2(mx['naive'], 4)} | {tr:.2f} |")
        fx = [max(d[kk]["rej"]["fixed1"][i] for kk in keys) for i in (0, 1)]
        fk = [max(d[kk]["rej"]["fixedk"][i] for kk in keys) for i in (0, 1)]
        L.append(f"| {kind} {model} | (fixed m = 1 / fixed m = k) | {f2(fx, 4)} / {f2(fk, 4)} | | | |")
    return "\n".join(L)


def taubench():
    txt = open(os.path.join(RES, "taubench.md")).read().split("\n")
    start = next(i for i, l in enumerate(txt) if l.startswith("| design"))
    return "\n".join(txt[start:]).strip()


def ci():
    txt = open(os.path.join(RES, "ci.md")).read().split("\n")
    start = next(i for i, l in enumerate(txt) if l.startswith("| data"))
    return "\n".join(txt[start:]).strip()


def drift():
    txt = open(os.path.join(RES, "drift.md")).read().split("\n")
    start = next(i for i, l in enumerate(txt) if l.startswith("| older"))
    return "\n".join(txt[start:]).strip()


def tau_model():
    d = J("null_power.json")["meta"]["tau_model"]
    t = J("tau_fit.json")
    best = str(t["best_conc_on_grid"])
    q = t["flipper_rate_5_95"]
    return (f"pi0 = {d['pi0']:.3f} always fail, pi1 = {d['pi1']:.3f} always succeed, the other cases' rate ~ "
            f"Beta({d['a']:.2f}, {d['b']:.2f}); expected histogram of successes out of 4 "
            f"{d['expected_hist']} vs observed {d['hist']}. The Beta concentration is not identifiable from "
            f"4 trials (`tau_fit.py`: negative log-likelihood {t['profile']['8']['nll']:.2f} at concentration 8, "
            f"{t['profile'][best]['nll']:.2f} at the best grid value {best}, {t['profile']['1000']['nll']:.2f} at 1000) "
            f"and is fixed at 8, so that the flippers' rates spread over {q[0]:.2f}–{q[1]:.2f} (5–95 %)")


def fixtures():
    d = J("../reference_values.json") if False else json.load(open(os.path.join(HERE, "reference_values.json")))
    L = ["| data set | statistic: exact p (brute force) | scipy cross-checks |", "|---|---|---|"]
    for e in d["datasets"]:
        ps = "; ".join(f"{s} {r['p_fraction']}" for s, r in e["results"].items())
        sc = sorted({k.replace("scipy_", "") for r in e["results"].values() for k in r if k.startswith("scipy_")})
        L.append(f"| {e['name']} | {ps} | {', '.join(sc) or '-'} |")
    return "\n".join(L)


def timing():
    d = J("timing.json")
    return "; ".join(f"{k}: {v.get('method', '')} {v['seconds']:.2f} s".replace(":  ", ": ") for k, v in d.items())


def confirm_max():
    d = J("null_confirm.json")
    v = [e["confirm"] for k, e in d.items() if k != "meta"]
    R = d["meta"]["R"]
    return (f"{len(v)} cells: at most {max(x[0] for x in v):.4f} at α = 0.05 and {max(x[1] for x in v):.4f} at "
            f"α = 0.01 (MC SE {math.sqrt(.05 * .95 / R):.4f} and {math.sqrt(.01 * .99 / R):.4f})")


def adaptive_summary():
    d = J("adaptive.json")
    parts = []
    for kind, model, stat, rule in (("binary", "tau", "mod", "nonconstant"), ("binary", "beta", "mod", "nonconstant"),
                                    ("cont", "mix", "sz", "below_mean")):
        keys = [k for k in d if k.startswith(f"{kind}|{model}|") and k.endswith(f"|null|{stat}")]
        sel = max(d[k]["rej"][f"{rule}|selective"][0] for k in keys)
        nai = max(d[k]["rej"][f"{rule}|naive"][0] for k in keys)
        tr = [d[k]["trials"][rule] for k in keys]
        parts.append(f"{kind} {model} (`{rule}`, {len(keys)} null cells): selective ≤ {sel:.4f}, naive up to "
                     f"{nai:.4f}, {min(tr):.2f}–{max(tr):.2f} trials per case")
    return "; ".join(parts)


TABLES = dict(confirm_max=confirm_max, adaptive_summary=adaptive_summary, timing=timing, size_chosen=size_chosen, size_candidates=size_candidates, confirm=confirm, power_chosen=power_chosen,
              power_candidates=power_candidates, ragged=ragged, explore=explore, adaptive=adaptive,
              adaptive_size=adaptive_size, taubench=taubench, ci=ci, drift=drift, tau_model=tau_model,
              fixtures=fixtures)


def main():
    import re
    src = open(os.path.join(HERE, "REPORT.src.md")).read()
    out = re.sub(r"@@TABLE (\w+)@@", lambda mt: TABLES[mt.group(1)](), src)
    open(os.path.join(HERE, "REPORT.md"), "w").write(out)
    print("wrote REPORT.md")


if __name__ == "__main__":
    main()
