#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the reference values the diagnostics are tested against, computed
here independently of engine/infer: plain Python, autocovariances as direct
sums over lags (no FFT), the normal quantile from the standard library,
following Vehtari, Gelman, Simpson, Carpenter and Buerkner (2021) and the
conventions of the R package posterior (split chains drop the middle draw of
an odd count, average ranks for ties, Blom's offset (r - 3/8) / (S + 1/4),
Geyer's initial monotone sequence with posterior's last even term, the
1 / log10(S) floor on tau, quantiles of type 7).

It writes, under data/:
  diagnostics-reference.json   small draw sets (rounded to 6 significant
                               digits, as CmdStan writes them) with R-hat,
                               ESS, MCSE, quantiles and E-BFMI of each
  reference-run/chain-{1..4}.csv
                               a four-chain Stan CSV run, CmdStan's layout,
                               warmup draws saved
  reference-summary.json       what a summary of that run must report

Not run by the test suite. Run it again after changing the cases:
  ./make-diagnostics-reference.py
"""
import json
import math
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
EPS = sys.float_info.epsilon
NAN = float("nan")
NORMAL = statistics.NormalDist()


def round6(v):
    """A value as CmdStan prints it (6 significant digits) and reads back."""
    if not math.isfinite(v):
        return v
    return float("%.6g" % v)


# ---------------------------------------------------------------- basics


def mean(xs):
    return math.fsum(xs) / len(xs)


def var(xs):
    """Sample variance, n - 1 in the denominator."""
    if len(xs) < 2:
        return NAN
    m = mean(xs)
    return math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def flatten(chains):
    return [x for c in chains for x in c]


def is_constant(xs):
    return abs(max(xs) - min(xs)) < EPS


def unusable(chains):
    """NA in posterior: a non-finite draw, or no spread at all."""
    xs = flatten(chains)
    return any(not math.isfinite(x) for x in xs) or is_constant(xs)


def quantile7(xs, p):
    """Hyndman and Fan's type 7, as R's quantile()."""
    if any(math.isnan(x) for x in xs):
        return NAN
    s = sorted(xs)
    h = (len(s) - 1) * p
    lo, hi = math.floor(h), math.ceil(h)
    if h > lo and s[hi] != s[lo]:
        return s[lo] + (h - lo) * (s[hi] - s[lo])
    return s[lo]


def split(chains):
    n = len(chains[0])
    if n < 2:
        return [list(c) for c in chains]
    half = n // 2
    return [c[:half] for c in chains] + [c[n - half:] for c in chains]


def average_ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        r = (i + 1 + j + 1) / 2
        for k in range(i, j + 1):
            ranks[order[k]] = r
        i = j + 1
    return ranks


def normal_scores(chains):
    """Rank-normalised draws: ranks over all chains, Blom's offset."""
    xs = flatten(chains)
    s = len(xs)
    z = [NORMAL.inv_cdf((r - 3 / 8) / (s + 1 / 4)) for r in average_ranks(xs)]
    n = len(chains[0])
    return [z[c * n:(c + 1) * n] for c in range(len(chains))]


# ---------------------------------------------------------------- R-hat


def rhat_core(chains):
    if any(math.isnan(x) for x in flatten(chains)) or unusable(chains):
        return NAN
    n = len(chains[0])
    if n < 2 or len(chains) < 2:
        return NAN
    means = [mean(c) for c in chains]
    w = mean([var(c) for c in chains])
    b = n * var(means)
    if w == 0:
        # chains each constant but different: IEEE division, as R does it
        return math.inf if b > 0 else NAN
    return math.sqrt((b / w + n - 1) / n)


def rhat_bulk(chains):
    if any(math.isnan(x) for x in flatten(chains)):
        return NAN
    return rhat_core(normal_scores(split(chains)))


def rhat_tail(chains):
    xs = flatten(chains)
    if any(math.isnan(x) for x in xs):
        return NAN
    med = quantile7(xs, 0.5)
    folded = [[abs(x - med) for x in c] for c in chains]
    return rhat_bulk(folded)


def rhat(chains):
    b, t = rhat_bulk(chains), rhat_tail(chains)
    if math.isnan(b) or math.isnan(t):
        return NAN
    return max(b, t)


# ---------------------------------------------------------------- ESS


def autocovariance(xs):
    """Direct sums: gamma_t = 1/n sum_i (x_i - m)(x_{i+t} - m)."""
    n = len(xs)
    if all(x == xs[0] for x in xs):
        return [0.0] * n
    m = mean(xs)
    d = [x - m for x in xs]
    return [math.fsum(d[i] * d[i + t] for i in range(n - t)) / n for t in range(n)]


def ess_core(chains):
    m, n = len(chains), len(chains[0])
    if n < 3 or unusable(chains):
        return NAN
    acovs = [autocovariance(c) for c in chains]
    acov = [math.fsum(a[t] for a in acovs) / m for t in range(n)]
    w = acov[0] * n / (n - 1)
    var_plus = w * (n - 1) / n
    if m > 1:
        var_plus += var([mean(c) for c in chains])

    def rho(t):
        return 1 - (w - acov[t]) / var_plus

    # Pairs (rho_2k, rho_2k+1) while their sum stays positive; the first
    # is (1, rho_1) whatever its sum, and no pair reaches beyond n - 4.
    kept = {0: 1.0, 1: rho(1)}
    last_even, last_odd = 1.0, rho(1)
    t = 0
    while t < n - 5 and not math.isnan(last_even + last_odd) and last_even + last_odd > 0:
        t += 2
        last_even, last_odd = rho(t), rho(t + 1)
        if last_even + last_odd >= 0:
            kept[t], kept[t + 1] = last_even, last_odd
    max_t = t
    if last_even > 0:
        kept[max_t] = last_even
    r = [kept.get(i, 0.0) for i in range(n)]

    # Initial monotone sequence: no pair sum above the one before it.
    for k in range(1, max_t // 2):
        prev = r[2 * k - 2] + r[2 * k - 1]
        if r[2 * k] + r[2 * k + 1] > prev:
            r[2 * k] = r[2 * k + 1] = prev / 2

    # R's rho_hat_t[1:max_t] is the first element alone when max_t is 0.
    head = r[:max_t] if max_t > 0 else r[:1]
    tau = -1 + 2 * math.fsum(head) + r[max_t]
    total = m * n
    tau = max(tau, 1 / math.log10(total))
    return total / tau


def ess_bulk(chains):
    if any(math.isnan(x) for x in flatten(chains)):
        return NAN
    return ess_core(normal_scores(split(chains)))


def ess_mean(chains):
    return ess_core(split(chains))


def ess_quantile(chains, p):
    if unusable(chains):
        return NAN
    q = quantile7(flatten(chains), p)
    return ess_mean([[1.0 if x <= q else 0.0 for x in c] for c in chains])


def ess_tail(chains):
    lo, hi = ess_quantile(chains, 0.05), ess_quantile(chains, 0.95)
    if math.isnan(lo) or math.isnan(hi):
        return NAN
    return min(lo, hi)


def mcse_mean(chains):
    xs = flatten(chains)
    return math.sqrt(var(xs)) / math.sqrt(ess_mean(chains))


def mcse_sd(chains):
    xs = flatten(chains)
    m = mean(xs)
    c2 = [[(x - m) ** 2 for x in c] for c in chains]
    e = ess_mean(c2)
    m2 = mean([(x - m) ** 2 for x in xs])
    m4 = mean([(x - m) ** 4 for x in xs])
    return math.sqrt((m4 - m2 * m2) / e / m2 / 4)


def ebfmi(energy):
    if len(energy) < 3 or any(math.isnan(e) for e in energy):
        return NAN
    num = math.fsum((energy[i] - energy[i - 1]) ** 2 for i in range(1, len(energy)))
    return num / len(energy) / var(energy)


def finite_or_nan(f, *args):
    try:
        return f(*args)
    except (ValueError, ZeroDivisionError, OverflowError):
        return NAN


def all_diagnostics(chains):
    xs = flatten(chains)
    has_nan = any(math.isnan(x) for x in xs)
    return {
        "rhat": rhat(chains),
        "rhat_bulk": rhat_bulk(chains),
        "rhat_tail": rhat_tail(chains),
        "ess_bulk": ess_bulk(chains),
        "ess_tail": ess_tail(chains),
        "ess_mean": ess_mean(chains),
        "ess_q05": ess_quantile(chains, 0.05),
        "ess_q95": ess_quantile(chains, 0.95),
        "mcse_mean": finite_or_nan(mcse_mean, chains) if not unusable(chains) else NAN,
        "mcse_sd": finite_or_nan(mcse_sd, chains) if not unusable(chains) else NAN,
        "mean": NAN if has_nan else finite_or_nan(mean, xs),
        "sd": NAN if has_nan or not all(math.isfinite(x) for x in xs) else math.sqrt(var(xs)),
        "q05": quantile7(xs, 0.05),
        "q50": quantile7(xs, 0.5),
        "q95": quantile7(xs, 0.95),
        "ebfmi": [finite_or_nan(ebfmi, c) for c in chains],
    }


# ---------------------------------------------------------------- draws


def ar1(rng, n, phi, sd=1.0, start=None):
    """Stationary AR(1) with marginal sd SD."""
    innovation = sd * math.sqrt(1 - phi * phi)
    x = rng.gauss(0, sd) if start is None else start
    out = []
    for _ in range(n):
        out.append(x)
        x = phi * x + rng.gauss(0, innovation)
    return out


def cauchy(rng):
    return math.tan(math.pi * (rng.random() - 0.5))


def poisson(rng, lam):
    k, p, limit = 0, rng.random(), math.exp(-lam)
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def cases():
    rng = random.Random(20211103)
    out = []

    def add(name, chains, note):
        out.append((name, [[round6(x) for x in c] for c in chains], note))

    add("normal", [[rng.gauss(0, 1) for _ in range(200)] for _ in range(4)],
        "independent standard normal draws")
    add("ar1", [ar1(rng, 250, 0.8) for _ in range(4)], "AR(1), phi = 0.8")
    add("antithetic", [ar1(rng, 200, -0.6) for _ in range(4)], "AR(1), phi = -0.6")
    add("heavy", [[cauchy(rng) for _ in range(200)] for _ in range(4)], "Cauchy draws")
    add("ties", [[float(poisson(rng, 2)) for _ in range(150)] for _ in range(4)],
        "Poisson(2) counts: many ties")
    add("binary", [[1.0 if rng.random() < 0.1 else 0.0 for _ in range(100)] for _ in range(4)],
        "0/1 draws, like divergent__")
    add("shifted", [[rng.gauss(2.0 if c == 3 else 0.0, 1) for _ in range(200)] for c in range(4)],
        "one chain's mean moved by 2 sd")
    add("scaled", [[rng.gauss(0, 4.0 if c == 0 else 1.0) for _ in range(200)] for c in range(4)],
        "one chain four times as wide: only the folded R-hat sees it")
    add("odd", [ar1(rng, 101, 0.3) for _ in range(3)], "odd chain length: the middle draw goes")
    add("short", [[rng.gauss(0, 1) for _ in range(9)] for _ in range(2)],
        "4 draws per split chain: Geyer's loop never runs")
    add("one-chain", [ar1(rng, 120, 0.5)], "a single chain, split in two")
    add("lognormal", [[math.exp(rng.gauss(0, 1)) for _ in range(200)] for _ in range(4)],
        "skewed draws, mean far from median")
    add("constant", [[1.5] * 10 for _ in range(4)], "every draw the same")
    nan_chains = [[rng.gauss(0, 1) for _ in range(50)] for _ in range(4)]
    nan_chains[2][17] = NAN
    add("with-nan", nan_chains, "one NaN draw")
    inf_chains = [[rng.gauss(0, 1) for _ in range(50)] for _ in range(4)]
    inf_chains[1][3] = float("inf")
    add("with-inf", inf_chains, "one infinite draw: ranks are still defined")
    add("two-draws", [[rng.gauss(0, 1) for _ in range(2)] for _ in range(3)],
        "too few draws for anything")
    return out


# ---------------------------------------------------------------- output


def enc(v):
    if isinstance(v, dict):
        return {k: enc(x) for k, x in v.items()}
    if isinstance(v, list):
        return [enc(x) for x in v]
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def csv_value(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return "%.6g" % v


HEADER = """\
# stan_version_major = 2
# stan_version_minor = 33
# stan_version_patch = 0
# model = reference_model
# start_datetime = 2024-02-06 10:12:31 UTC
# method = sample (Default)
#   sample
#     num_samples = {samples}
#     num_warmup = {warmup}
#     save_warmup = 1
#     thin = 1 (Default)
#     adapt
#       engaged = 1 (Default)
#       gamma = 0.050000000000000003 (Default)
#       delta = 0.80000000000000004 (Default)
#       kappa = 0.75 (Default)
#       t0 = 10 (Default)
#       init_buffer = 75 (Default)
#       term_buffer = 50 (Default)
#       window = 25 (Default)
#     algorithm = hmc (Default)
#       hmc
#         engine = nuts (Default)
#           nuts
#             max_depth = 10 (Default)
#         metric = diag_e (Default)
#         metric_file =  (Default)
#         stepsize = 1 (Default)
#         stepsize_jitter = 0 (Default)
#     num_chains = 1 (Default)
# id = {chain}
# data
#   file = reference.data.json
# init = 2 (Default)
# random
#   seed = 4711
# output
#   file = chain-{chain}.csv
#   diagnostic_file =  (Default)
#   refresh = 100 (Default)
#   sig_figs = -1 (Default)
#   profile_file = profile.csv (Default)
# num_threads = 1 (Default)
# stanc_version = stanc3 v2.33.1
# stancflags =
"""

COLUMNS = ["lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
           "divergent__", "energy__", "mu", "theta.1", "theta.2", "theta.3",
           "L.1.1", "L.2.1", "L.1.2", "L.2.2", "tau", "zero"]
# The order a summary lists them in: matrices row by row.
DISPLAY = ["lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
           "divergent__", "energy__", "mu", "theta[1]", "theta[2]", "theta[3]",
           "L[1,1]", "L[1,2]", "L[2,1]", "L[2,2]", "tau", "zero"]
DISPLAY_SOURCE = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 12, 14, 15, 16]


def reference_run():
    rng = random.Random(4711)
    n_chains, n_samples, n_warmup = 4, 400, 20
    step_sizes = [0.81, 0.77, 0.85, 0.79]
    runs = []
    for c in range(n_chains):
        cols = {}
        mu = ar1(rng, n_samples, 0.4, 2.0)
        cols["mu"] = [1.0 + m for m in mu]
        cols["theta.1"] = ar1(rng, n_samples, 0.1)
        cols["theta.2"] = ar1(rng, n_samples, 0.7)
        # chain 3 stuck in another mode: R-hat must flag theta.3
        cols["theta.3"] = [x + (3.0 if c == 2 else 0.0) for x in ar1(rng, n_samples, 0.2)]
        cols["L.1.1"] = [1.0] * n_samples
        cols["L.2.1"] = [rng.uniform(-1, 1) for _ in range(n_samples)]
        cols["L.1.2"] = [0.0] * n_samples
        cols["L.2.2"] = [math.sqrt(1 - x * x) for x in cols["L.2.1"]]
        cols["tau"] = [math.exp(x) for x in ar1(rng, n_samples, 0.5, 0.8)]
        cols["zero"] = [0.0] * n_samples
        cols["lp__"] = [-0.5 * (t1 * t1 + t2 * t2) - 4.2 + 0.1 * rng.gauss(0, 1)
                        for t1, t2 in zip(cols["theta.1"], cols["theta.2"])]
        cols["accept_stat__"] = [min(1.0, rng.betavariate(8, 2) + 0.05) for _ in range(n_samples)]
        cols["stepsize__"] = [step_sizes[c]] * n_samples
        depths = [float(rng.choice([2, 3, 3, 3, 4])) for _ in range(n_samples)]
        if c == 1:
            for i in (5, 77, 150):
                depths[i] = 10.0
        cols["treedepth__"] = depths
        cols["n_leapfrog__"] = [float(2 ** int(d) - 1 if rng.random() < 0.5 else 2 ** int(d - 1) + 1)
                                for d in depths]
        div = [0.0] * n_samples
        if c == 0:
            for i in (10, 200):
                div[i] = 1.0
        if c == 3:
            div[399] = 1.0
        cols["divergent__"] = div
        # chain 4's energy moves slowly: E-BFMI about 2 (1 - 0.9)
        cols["energy__"] = [6.0 + x for x in ar1(rng, n_samples, 0.9 if c == 3 else 0.5, 1.5)]
        rows = [[round6(cols[name][i]) for name in COLUMNS] for i in range(n_samples)]
        warm = [[round6(100.0 + 10 * rng.random()) for _ in COLUMNS] for _ in range(n_warmup)]
        runs.append((warm, rows, step_sizes[c]))
    return n_chains, n_samples, n_warmup, runs


def write_run():
    n_chains, n_samples, n_warmup, runs = reference_run()
    folder = os.path.join(DATA, "reference-run")
    os.makedirs(folder, exist_ok=True)
    for c, (warm, rows, step) in enumerate(runs):
        with open(os.path.join(folder, "chain-%d.csv" % (c + 1)), "w") as f:
            f.write(HEADER.format(samples=n_samples, warmup=n_warmup, chain=c + 1))
            f.write(",".join(COLUMNS) + "\n")
            for r in warm:
                f.write(",".join(csv_value(v) for v in r) + "\n")
            f.write("# Adaptation terminated\n")
            f.write("# Step size = %g\n" % step)
            f.write("# Diagonal elements of inverse mass matrix:\n")
            f.write("# 1.02, 0.98, 1.1, 0.5, 2.25, 0.7\n")
            for r in rows:
                f.write(",".join(csv_value(v) for v in r) + "\n")
            f.write("# \n")
            f.write("#  Elapsed Time: %.3f seconds (Warm-up)\n" % (0.05 + 0.01 * c))
            f.write("#                %.3f seconds (Sampling)\n" % (0.04 + 0.005 * c))
            f.write("#                %.3f seconds (Total)\n" % (0.09 + 0.015 * c))
            f.write("# \n")

    columns = []
    for display, src in zip(DISPLAY, DISPLAY_SOURCE):
        chains = [[row[src] for row in rows] for (_, rows, _) in runs]
        d = all_diagnostics(chains)
        columns.append({
            "name": display,
            "mean": d["mean"], "mcse": d["mcse_mean"], "sd": d["sd"],
            "q5": d["q05"], "q50": d["q50"], "q95": d["q95"],
            "ess_bulk": d["ess_bulk"], "ess_tail": d["ess_tail"], "rhat": d["rhat"],
        })
    div_col, depth_col, energy_col = COLUMNS.index("divergent__"), COLUMNS.index("treedepth__"), \
        COLUMNS.index("energy__")
    summary = {
        "chains": n_chains,
        "draws_per_chain": n_samples,
        "warmup_rows": n_warmup,
        "columns": columns,
        "divergent": [int(sum(r[div_col] for r in rows)) for (_, rows, _) in runs],
        "max_treedepth_hits": [sum(1 for r in rows if r[depth_col] >= 10) for (_, rows, _) in runs],
        "ebfmi": [ebfmi([r[energy_col] for r in rows]) for (_, rows, _) in runs],
        "step_sizes": [s for (_, _, s) in runs],
    }
    return summary


def main():
    os.makedirs(DATA, exist_ok=True)
    out = {"cases": []}
    for name, chains, note in cases():
        out["cases"].append({
            "name": name,
            "note": note,
            "draws": enc(chains),
            "expected": enc(all_diagnostics(chains)),
        })
    with open(os.path.join(DATA, "diagnostics-reference.json"), "w") as f:
        f.write('{"cases": [\n')
        f.write(",\n".join(json.dumps(c) for c in out["cases"]))
        f.write("\n]}\n")

    summary = write_run()
    for col in summary["columns"]:
        for k, v in col.items():
            if k != "name":
                col[k] = enc(v)
    summary["ebfmi"] = enc(summary["ebfmi"])
    with open(os.path.join(DATA, "reference-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
