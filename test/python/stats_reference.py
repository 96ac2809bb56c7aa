"""Reference values from SciPy for test/unit/stats.test.mjs (scripts/lib/stats.mjs).

Reads a JSON list of cases on stdin, writes a JSON list of answers on stdout. Runs in the
.run/otava venv (make otava-deps), whose SciPy comes pinned with Apache Otava.
"""
import json
import math
import sys

import numpy as np
from scipy import stats


def rank_sum(x, y, axis):
    pooled = np.concatenate([x, y], axis=axis)
    ranks = stats.rankdata(pooled, axis=axis)
    return np.sum(ranks[..., : x.shape[axis]], axis=axis)


def answer(case):
    kind = case["kind"]
    if kind == "mwu":
        r = stats.mannwhitneyu(case["x"], case["y"], alternative=case["alternative"], method=case["method"])
        return {"U": float(r.statistic), "p": float(r.pvalue)}
    if kind == "perm":
        # Exact permutation test of the rank sum: the reference for samples with ties.
        r = stats.permutation_test((np.array(case["x"], float), np.array(case["y"], float)), rank_sum,
                                   permutation_type="independent", alternative=case["alternative"],
                                   n_resamples=np.inf, vectorized=True)
        return {"p": float(r.pvalue)}
    if kind == "median_ci":
        x = np.array(case["x"], float)
        ci = stats.quantile_test(x, q=float(np.median(x)), p=0.5).confidence_interval(case["conf"])
        return {"lo": None if math.isnan(ci.low) else float(ci.low), "hi": None if math.isnan(ci.high) else float(ci.high)}
    if kind == "wilcoxon":
        r = stats.wilcoxon(case["d"], alternative=case["alternative"], method="exact")
        return {"p": float(r.pvalue)}
    if kind == "t_ppf":
        return {"q": float(stats.t.ppf(case["p"], case["df"]))}
    if kind == "binom_cdf":
        return {"c": float(stats.binom.cdf(case["k"], case["n"], 0.5))}
    raise ValueError(kind)


print(json.dumps([answer(c) for c in json.load(sys.stdin)]))
