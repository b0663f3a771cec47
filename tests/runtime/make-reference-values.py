#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes data/reference-values.json: values of math functions and log
densities computed with mpmath at 50 digits from their textbook
definitions, independently of the runtime. Run it again after adding
cases: ./make-reference-values.py > data/reference-values.json"""
import json
import mpmath as mp

mp.mp.dps = 50
M = mp.mpf


def inv_logit(x):
    return 1 / (1 + mp.exp(-x))


def Phi(x):
    return mp.ncdf(x)


def lchoose(n, k):
    return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)


def r(x):
    if isinstance(x, mp.matrix):
        # column-major, as the runtime stores matrices
        return [float(x[i, j]) for j in range(x.cols) for i in range(x.rows)]
    if isinstance(x, list):
        return [float(v) for v in x]
    return float(x)


functions = []


def fn(name, args, value):
    functions.append({"name": name, "args": args, "value": r(value)})


for x in [0.3, -2.5, 12.0, -40.0]:
    fn("exp", [x], mp.exp(M(x)))
for x in [1e-8, 0.3, 7.0, 1e12]:
    fn("log", [x], mp.log(M(x)))
for x in [1e-10, -0.5, 3.0]:
    fn("log1p", [x], mp.log1p(M(x)))
for x in [1e-10, -0.5, 3.0]:
    fn("expm1", [x], mp.expm1(M(x)))
for x in [1e-10, 0.5, -3.0]:
    fn("log1m", [x], mp.log(1 - M(x)))
for x in [1e-5, 0.5, 3.7, 150.0, -2.5]:
    fn("lgamma", [x], mp.log(abs(mp.gamma(M(x)))))
for x in [1e-3, 0.3, 2.0, 40.0, -2.5]:
    fn("digamma", [x], mp.digamma(M(x)))
for x in [0.3, 5.0, -1.3, -0.5]:
    fn("trigamma", [x], mp.psi(1, M(x)))
for x in [0.0, 2.5, -3.0, 40.0, -40.0]:
    fn("inv_logit", [x], inv_logit(M(x)))
    fn("log_inv_logit", [x], mp.log(inv_logit(M(x))))
    fn("log1m_inv_logit", [x], mp.log(1 - inv_logit(M(x))))
    fn("log1p_exp", [x], mp.log(1 + mp.exp(M(x))))
for p in [1e-9, 0.2, 0.5, 0.97]:
    fn("logit", [p], mp.log(M(p) / (1 - M(p))))
for x in [-1e-12, -0.3, -5.0, -50.0]:
    fn("log1m_exp", [x], mp.log(1 - mp.exp(M(x))))
for x in [0.0, 1.3, -2.0, -7.5, -30.0, 6.0]:
    fn("Phi", [x], Phi(M(x)))
for p in [1e-12, 0.025, 0.5, 0.8, 0.999999]:
    fn("inv_Phi", [p], mp.sqrt(2) * mp.erfinv(2 * M(p) - 1))
for x in [0.2, -1.5, 3.0]:
    fn("erf", [x], mp.erf(M(x)))
    fn("erfc", [x], mp.erfc(M(x)))
for x in [0.0, 1.0, -3.0]:
    fn("inv_cloglog", [x], 1 - mp.exp(-mp.exp(M(x))))
for x in [2.0, 0.01]:
    fn("sqrt", [x], mp.sqrt(M(x)))
    fn("cbrt", [x], mp.cbrt(M(x)))
    fn("inv_sqrt", [x], 1 / mp.sqrt(M(x)))
for x in [-1.5, 2.5]:
    fn("square", [x], M(x) ** 2)
    fn("fabs", [x], abs(M(x)))
    fn("tanh", [x], mp.tanh(M(x)))
    fn("inv", [x], 1 / M(x))
for a, b in [(2.5, 1.5), (0.3, 4.0), (1e-3, 2.0)]:
    fn("pow", [a, b], M(a) ** M(b))
    fn("lbeta", [a, b], mp.log(mp.beta(M(a), M(b))))
    fn("hypot", [a, b], mp.sqrt(M(a) ** 2 + M(b) ** 2))
    fn("atan2", [a, b], mp.atan2(M(a), M(b)))
for n, k in [(10.0, 3.0), (7.5, 2.25), (100.0, 50.0)]:
    fn("lchoose", [n, k], lchoose(M(n), M(k)))
for a, b in [(2.0, 1.0), (0.0, -30.0), (-1.0, -1.5)]:
    fn("log_diff_exp", [a, b], mp.log(mp.exp(M(a)) - mp.exp(M(b))))
    fn("log_sum_exp", [a, b], mp.log(mp.exp(M(a)) + mp.exp(M(b))))
fn("fma", [1.5, -2.0, 0.25], M(1.5) * M(-2.0) + M(0.25))
for th, a, b in [(0.3, -1.0, -2.0), (0.9, -700.0, -701.0)]:
    fn("log_mix", [th, a, b], mp.log(M(th) * mp.exp(M(a)) + (1 - M(th)) * mp.exp(M(b))))
fn("log_sum_exp", [{"vector": [1.0, 2.0, -3.0, 0.5]}],
   mp.log(sum(mp.exp(M(v)) for v in [1.0, 2.0, -3.0, 0.5])))
fn("sum", [{"vector": [1.0, 2.0, -3.0, 0.5]}], M(0.5))
fn("mean", [{"vector": [1.0, 2.0, -3.0, 0.5]}], M(0.125))
vals = [1.0, 2.0, -3.0, 0.5]
m = sum(map(M, vals)) / 4
fn("variance", [{"vector": vals}], sum((M(v) - m) ** 2 for v in vals) / 3)
fn("sd", [{"vector": vals}], mp.sqrt(sum((M(v) - m) ** 2 for v in vals) / 3))
fn("dot_self", [{"vector": vals}], sum(M(v) ** 2 for v in vals))
fn("dot_product", [{"vector": vals}, {"vector": [0.5, -1.0, 2.0, 3.0]}],
   sum(M(a) * M(b) for a, b in zip(vals, [0.5, -1.0, 2.0, 3.0])))

# special functions


def bisect(f, lo, hi):
    """The root of an increasing f in [lo, hi]."""
    for _ in range(400):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


for v, x in [(0, 0.7), (2, 3.5), (5, 12.0), (1, -2.0)]:
    fn("bessel_first_kind", [{"int": v}, x], mp.besselj(v, M(x)))
    fn("modified_bessel_first_kind", [{"int": v}, x], mp.besseli(v, M(x)))
    if x > 0:
        fn("bessel_second_kind", [{"int": v}, x], mp.bessely(v, M(x)))
        fn("modified_bessel_second_kind", [{"int": v}, x], mp.besselk(v, M(x)))
for v, z in [(1.0, 0.7), (2.5, 3.5), (0.3, 40.0), (7.0, 0.2)]:
    fn("log_modified_bessel_first_kind", [v, z], mp.log(mp.besseli(M(v), M(z))))
for a, x in [(0.5, 0.3), (3.0, 2.5), (10.0, 25.0), (2.0, 1e-3)]:
    fn("gamma_p", [a, x], mp.gammainc(M(a), 0, M(x), regularized=True))
    fn("gamma_q", [a, x], mp.gammainc(M(a), M(x), mp.inf, regularized=True))
for a, b, x in [(0.5, 2.0, 0.3), (3.0, 4.0, 0.9), (20.0, 0.7, 0.95)]:
    fn("inc_beta", [a, b, x], mp.betainc(M(a), M(b), 0, M(x), regularized=True))
    p = mp.betainc(M(a), M(b), 0, M(x), regularized=True)
    fn("inv_inc_beta", [a, b, float(p)],
       bisect(lambda t: mp.betainc(M(a), M(b), 0, t, regularized=True) - M(float(p)), M(0), M(1)))
for a, b in [(0.5, 2.0), (3.0, 4.0), (1e-3, 7.0)]:
    fn("beta", [a, b], mp.beta(M(a), M(b)))
for x, n in [(5.5, 2), (10.0, 4), (0.3, 1)]:
    fn("falling_factorial", [x, {"int": n}], mp.gamma(M(x) + 1) / mp.gamma(M(x) - n + 1))
    fn("rising_factorial", [x, {"int": n}], mp.gamma(M(x) + n) / mp.gamma(M(x)))
for x, n in [(5.5, 2.5), (10.0, 4.0), (0.3, 0.2)]:
    fn("log_falling_factorial", [x, n], mp.loggamma(M(x) + 1) - mp.loggamma(M(x) - M(n) + 1))
    fn("log_rising_factorial", [x, n], mp.loggamma(M(x) + M(n)) - mp.loggamma(M(x)))
for k, x in [(1, 2.5), (3, 4.0), (4, 1.7)]:
    fn("lmgamma", [{"int": k}, x],
       k * (k - 1) / M(4) * mp.log(mp.pi) + sum(mp.loggamma(M(x) + M(1 - j) / 2) for j in range(1, k + 1)))
for a, b in [(2.0, 1.0), (0.5, -3.0), (-20.0, -25.0), (30.0, 29.5)]:
    fn("log_inv_logit_diff", [a, b], mp.log(inv_logit(M(a)) - inv_logit(M(b))))
for x, y in [(2.0, 3.5), (0.5, 1e-3)]:
    fn("lmultiply", [x, y], M(x) * mp.log(M(y)))
for y, yh in [(1, 0.3), (0, 0.3), (0, 0.999)]:
    fn("binary_log_loss", [{"int": y}, yh], -mp.log(M(yh)) if y else -mp.log(1 - M(yh)))


def owen(h, a):
    return mp.quad(lambda t: mp.exp(-h ** 2 * (1 + t ** 2) / 2) / (1 + t ** 2), [0, a]) / (2 * mp.pi)


for h, a in [(0.5, 1.2), (-1.5, 0.3), (3.0, -2.0)]:
    fn("owens_t", [h, a], owen(M(h), M(a)))
for x, e in [(1.5, 3), (-0.7, -4)]:
    fn("ldexp", [x, {"int": e}], M(x) * M(2) ** e)
for x in [0.5, 4.0, -0.2]:
    fn("lambert_w0", [x], mp.lambertw(M(x), 0))
for x in [-0.2, -1e-3]:
    fn("lambert_wm1", [x], mp.lambertw(M(x), -1))
for x in [0.3, 1.5, 1e-8]:
    fn("inv_erfc", [x], mp.erfinv(1 - M(x)))
for p in [0.3, 0.999, 1e-10]:
    fn("std_normal_qf", [p], mp.sqrt(2) * mp.erfinv(2 * M(p) - 1))
for lp in [-0.3, -1e-5, -30.0, -1000.0]:
    fn("std_normal_log_qf", [lp], bisect(lambda x: mp.log(mp.ncdf(x)) - M(lp), M(-60), M(10)))
th = [0.2, 0.5, 0.3]
lam = [-1.0, 0.5, -3.0]
lams = [[-1.0, 0.5, -3.0], [2.0, -0.5, 0.0]]
fn("log_mix", [{"vector": th}, {"vector": lam}], mp.log(sum(M(t) * mp.exp(M(l)) for t, l in zip(th, lam))))
fn("log_mix", [{"vector": th}, {"vectors": lams}],
   sum(mp.log(sum(M(t) * mp.exp(M(l)) for t, l in zip(th, ls))) for ls in lams))
fn("norm1", [{"vector": [1.0, -2.0, 0.5]}], M(3.5))
fn("norm2", [{"vector": [1.0, -2.0, 0.5]}], mp.sqrt(M(5.25)))
fn("distance", [{"vector": [1.0, -2.0, 0.5]}, {"vector": [0.0, 1.0, 1.5]}], mp.sqrt(M(11)))
fn("squared_distance", [{"vector": [1.0, -2.0, 0.5]}, {"vector": [0.0, 1.0, 1.5]}], M(11))
for x in [0.3, 5.0, -1.3, -0.5]:
    fn("trigamma", [x], mp.psi(1, M(x)))

# linear algebra
A3 = [[2.0, 0.5, -1.0], [0.3, 1.5, 0.2], [-0.4, 0.7, 3.0]]
S3 = [[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.1]]
B32 = [[1.0, -1.0], [0.5, 2.0], [-0.3, 0.7]]
B23 = [[1.0, 0.5, -0.3], [-1.0, 2.0, 0.7]]
L3m = [[1.5, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.2, 1.1]]
b3 = [0.5, -2.0, 1.25]
A, S, L = mp.matrix(A3), mp.matrix(S3), mp.matrix(L3m)
fn("mdivide_left", [{"matrix": A3}, {"vector": b3}], mp.lu_solve(A, mp.matrix(b3)))
fn("mdivide_left", [{"matrix": A3}, {"matrix": B32}], mp.inverse(A) * mp.matrix(B32))
fn("mdivide_right", [{"matrix": B23}, {"matrix": A3}], mp.matrix(B23) * mp.inverse(A))
fn("mdivide_right", [{"row_vector": b3}, {"matrix": A3}], mp.matrix([b3]) * mp.inverse(A))
fn("mdivide_left_spd", [{"matrix": S3}, {"matrix": B32}], mp.inverse(S) * mp.matrix(B32))
fn("mdivide_right_spd", [{"matrix": B23}, {"matrix": S3}], mp.matrix(B23) * mp.inverse(S))
fn("mdivide_right_tri_low", [{"matrix": B23}, {"matrix": L3m}], mp.matrix(B23) * mp.inverse(L))
fn("mdivide_right_tri_low", [{"row_vector": b3}, {"matrix": L3m}], mp.matrix([b3]) * mp.inverse(L))
fn("inverse", [{"matrix": A3}], mp.inverse(A))
fn("inverse_spd", [{"matrix": S3}], mp.inverse(S))
fn("chol2inv", [{"matrix": L3m}], mp.inverse(L * L.T))
fn("log_determinant", [{"matrix": A3}], mp.log(abs(mp.det(A))))
fn("log_determinant", [{"matrix": [[0.0, 1.0], [2.0, 0.5]]}], mp.log(M(2)))
fn("log_determinant_spd", [{"matrix": S3}], mp.log(mp.det(S)))
fn("determinant", [{"matrix": A3}], mp.det(A))
fn("trace", [{"matrix": A3}], M(2.0) + M(1.5) + M(3.0))
fn("quad_form", [{"matrix": A3}, {"matrix": B32}], mp.matrix(B32).T * A * mp.matrix(B32))
fn("quad_form", [{"matrix": A3}, {"vector": b3}], (mp.matrix(b3).T * A * mp.matrix(b3))[0])
fn("quad_form_sym", [{"matrix": S3}, {"matrix": B32}], mp.matrix(B32).T * S * mp.matrix(B32))
fn("quad_form_diag", [{"matrix": A3}, {"vector": b3}], mp.diag(b3) * A * mp.diag(b3))
fn("trace_quad_form", [{"matrix": A3}, {"matrix": B32}],
   sum((mp.matrix(B32).T * A * mp.matrix(B32))[i, i] for i in range(2)))
D2 = [[1.0, 0.4], [-0.2, 2.0]]
fn("trace_gen_quad_form", [{"matrix": D2}, {"matrix": A3}, {"matrix": B32}],
   sum((mp.matrix(D2) * mp.matrix(B32).T * A * mp.matrix(B32))[i, i] for i in range(2)))
fn("matrix_power", [{"matrix": A3}, {"int": 3}], A * A * A)
fn("matrix_power", [{"matrix": A3}, {"int": 0}], mp.eye(3))
ev, _ = mp.eigsy(S)
fn("eigenvalues_sym", [{"matrix": S3}], sorted([ev[i] for i in range(3)]))

# Gaussian-process covariances


def gp_matrix(k, xs, ys):
    return mp.matrix([[k(x, y) for y in ys] for x in xs])


def dist2(x, y, ls):
    return sum(((M(a) - M(b)) / M(l)) ** 2 for a, b, l in zip(x, y, ls))


pts = [0.0, 1.0, 2.5]
vpts = [[0.0, 1.0], [1.0, -0.5], [2.5, 0.3]]
vpts2 = [[0.5, 0.5], [-1.0, 2.0]]
sg, ls1, ard, per = 1.3, 0.7, [0.7, 1.9], 2.2
for name, g in [("gp_exp_quad_cov", lambda r2: mp.exp(-r2 / 2)),
                ("gp_matern32_cov", lambda r2: (1 + mp.sqrt(3 * r2)) * mp.exp(-mp.sqrt(3 * r2))),
                ("gp_matern52_cov", lambda r2: (1 + mp.sqrt(5 * r2) + 5 * r2 / 3) * mp.exp(-mp.sqrt(5 * r2))),
                ("gp_exponential_cov", lambda r2: mp.exp(-mp.sqrt(r2)))]:
    fn(name, [{"array": pts}, sg, ls1],
       gp_matrix(lambda x, y: M(sg) ** 2 * g(dist2([x], [y], [ls1])), pts, pts))
    fn(name, [{"vectors": vpts}, sg, ls1],
       gp_matrix(lambda x, y: M(sg) ** 2 * g(dist2(x, y, [ls1, ls1])), vpts, vpts))
    fn(name, [{"vectors": vpts}, {"vectors": vpts2}, sg, ls1],
       gp_matrix(lambda x, y: M(sg) ** 2 * g(dist2(x, y, [ls1, ls1])), vpts, vpts2))
    fn(name, [{"vectors": vpts}, sg, {"array": ard}],
       gp_matrix(lambda x, y: M(sg) ** 2 * g(dist2(x, y, ard)), vpts, vpts))
    fn(name, [{"array": pts}, {"array": [0.3, -1.0]}, sg, ls1],
       gp_matrix(lambda x, y: M(sg) ** 2 * g(dist2([x], [y], [ls1])), pts, [0.3, -1.0]))


def periodic(x, y):
    d = mp.sqrt(dist2(x, y, [1] * len(x)))
    return M(sg) ** 2 * mp.exp(-2 * mp.sin(mp.pi * d / M(per)) ** 2 / M(ls1) ** 2)


fn("gp_periodic_cov", [{"array": pts}, sg, ls1, per], gp_matrix(lambda x, y: periodic([x], [y]), pts, pts))
fn("gp_periodic_cov", [{"vectors": vpts}, {"vectors": vpts2}, sg, ls1, per], gp_matrix(periodic, vpts, vpts2))
fn("gp_dot_prod_cov", [{"array": pts}, sg], gp_matrix(lambda x, y: M(sg) ** 2 + M(x) * M(y), pts, pts))
fn("gp_dot_prod_cov", [{"vectors": vpts}, {"vectors": vpts2}, sg],
   gp_matrix(lambda x, y: M(sg) ** 2 + sum(M(a) * M(b) for a, b in zip(x, y)), vpts, vpts2))

densities = []


def dens(name, args, value, gradient=True):
    case = {"name": name, "args": args, "value": r(value)}
    if not gradient:
        # finite differences cannot follow the cancellation of large counts
        case["values_only"] = True
    densities.append(case)


def normal_lpdf(y, mu, s):
    return -mp.log(s) - mp.log(mp.sqrt(2 * mp.pi)) - (y - mu) ** 2 / (2 * s ** 2)


for y, mu, s in [(0.3, -1.0, 2.0), (10.0, 0.0, 0.1)]:
    dens("normal_lpdf", [y, mu, s], normal_lpdf(M(y), M(mu), M(s)))
dens("std_normal_lpdf", [1.7], normal_lpdf(M(1.7), 0, 1))
dens("normal_lpdf", [{"vector": [0.5, -1.5, 2.0]}, 0.25, {"vector": [1.0, 2.0, 0.5]}],
     sum(normal_lpdf(M(y), M(0.25), M(s)) for y, s in [(0.5, 1.0), (-1.5, 2.0), (2.0, 0.5)]))
for y, mu, s in [(0.3, -1.0, 2.0), (50.0, 1.0, 0.5)]:
    dens("cauchy_lpdf", [y, mu, s], -mp.log(mp.pi * M(s) * (1 + ((M(y) - M(mu)) / M(s)) ** 2)))
for y, nu, mu, s in [(0.3, 3.0, -1.0, 2.0), (-4.0, 0.7, 1.0, 0.5)]:
    y, nu, mu, s = map(M, (y, nu, mu, s))
    dens("student_t_lpdf", [float(y), float(nu), float(mu), float(s)],
         mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2) - mp.log(mp.sqrt(nu * mp.pi) * s)
         - (nu + 1) / 2 * mp.log(1 + ((y - mu) / s) ** 2 / nu))
for y, b in [(0.3, 2.0), (4.0, 0.1)]:
    dens("exponential_lpdf", [y, b], mp.log(M(b)) - M(b) * M(y))
for y, a, b in [(0.3, 2.0, 1.5), (4.0, 0.5, 3.0)]:
    y, a, b = map(M, (y, a, b))
    dens("gamma_lpdf", [float(y), float(a), float(b)],
         a * mp.log(b) - mp.loggamma(a) + (a - 1) * mp.log(y) - b * y)
    dens("inv_gamma_lpdf", [float(y), float(a), float(b)],
         a * mp.log(b) - mp.loggamma(a) - (a + 1) * mp.log(y) - b / y)
    dens("lognormal_lpdf", [float(y), float(a), float(b)],
         -mp.log(y * b * mp.sqrt(2 * mp.pi)) - (mp.log(y) - a) ** 2 / (2 * b ** 2))
for y, a, b in [(0.3, 2.0, 1.5), (0.999, 0.5, 3.0)]:
    y, a, b = map(M, (y, a, b))
    dens("beta_lpdf", [float(y), float(a), float(b)],
         (a - 1) * mp.log(y) + (b - 1) * mp.log(1 - y) - mp.log(mp.beta(a, b)))
dens("uniform_lpdf", [0.3, -1.0, 2.5], -mp.log(M(3.5)))
for n, th in [(1, 0.3), (0, 0.3)]:
    dens("bernoulli_lpmf", [{"int": n}, th], mp.log(M(th) if n else 1 - M(th)))
for n, a in [(1, 0.3), (0, 2.5), (1, -30.0)]:
    p = inv_logit(M(a))
    dens("bernoulli_logit_lpmf", [{"int": n}, a], mp.log(p if n else 1 - p))
for n, N, th in [(3, 10, 0.25), (0, 5, 0.6)]:
    dens("binomial_lpmf", [{"int": n}, {"int": N}, th],
         lchoose(M(N), M(n)) + n * mp.log(M(th)) + (N - n) * mp.log(1 - M(th)))
    p = inv_logit(M(th) * 4 - 1)
    dens("binomial_logit_lpmf", [{"int": n}, {"int": N}, float(M(th) * 4 - 1)],
         lchoose(M(N), M(n)) + n * mp.log(p) + (N - n) * mp.log(1 - p))
for n, lam in [(3, 2.5), (0, 0.1), (40, 35.0)]:
    dens("poisson_lpmf", [{"int": n}, lam], n * mp.log(M(lam)) - M(lam) - mp.loggamma(n + 1))
    dens("poisson_log_lpmf", [{"int": n}, float(mp.log(M(lam)))],
         n * mp.log(M(lam)) - M(lam) - mp.loggamma(n + 1))


def nb2(n, mu, phi):
    n, mu, phi = M(n), M(mu), M(phi)
    return (mp.loggamma(n + phi) - mp.loggamma(n + 1) - mp.loggamma(phi)
            + n * mp.log(mu / (mu + phi)) + phi * mp.log(phi / (mu + phi)))


# the last three: a precision so small beside the count that n + phi - 1
# rounds phi away, where log C(n + phi - 1, n) must come from phi itself
for n, mu, phi in [(3, 2.5, 4.0), (0, 0.7, 0.3), (25, 10.0, 2.0),
                   (1000, 5.0, 1e-10), (7, 3.0, 1e-6), (40000, 2e4, 1e-3)]:
    smooth = phi > 1e-2
    dens("neg_binomial_2_lpmf", [{"int": n}, mu, phi], nb2(n, mu, phi), smooth)
    dens("neg_binomial_2_log_lpmf", [{"int": n}, float(mp.log(M(mu))), phi], nb2(n, mu, phi),
         smooth)
for y, mu, s in [(0.3, -1.0, 2.0), (-12.0, 0.0, 1.0), (3.0, 0.0, 1.0)]:
    dens("normal_lcdf", [y, mu, s], mp.log(Phi((M(y) - M(mu)) / M(s))))
    dens("normal_lccdf", [y, mu, s], mp.log(1 - Phi((M(y) - M(mu)) / M(s))))


def t_cdf(x, nu):
    return mp.quad(lambda t: mp.gamma((nu + 1) / 2) / (mp.sqrt(nu * mp.pi) * mp.gamma(nu / 2))
                   * (1 + t ** 2 / nu) ** (-(nu + 1) / 2), [-mp.inf, x])


for y, nu, mu, s in [(0.0, 3.0, 0.0, 10.0), (2.5, 4.0, 1.0, 0.5)]:
    c = t_cdf((M(y) - M(mu)) / M(s), M(nu))
    dens("student_t_lcdf", [y, nu, mu, s], mp.log(c))
    dens("student_t_lccdf", [y, nu, mu, s], mp.log(1 - c))

# multivariate
L = [[1.5, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.2, 1.1]]
y = [0.5, -1.0, 2.0]
mu = [0.1, 0.2, -0.3]
Lm = mp.matrix(L)
z = mp.lu_solve(Lm, mp.matrix([M(a) - M(b) for a, b in zip(y, mu)]))
val = (-3 * mp.log(mp.sqrt(2 * mp.pi)) - sum(mp.log(M(L[k][k])) for k in range(3))
       - sum(z[i] ** 2 for i in range(3)) / 2)
dens("multi_normal_cholesky_lpdf", [{"vector": y}, {"vector": mu}, {"matrix": L}], val)


def lkj_chol(Lrows, eta):
    K = len(Lrows)
    eta = M(eta)
    logc = sum((2 * eta - 2 + K - k) * (K - k) for k in range(1, K)) * mp.log(2)
    logc += sum((K - k) * mp.log(mp.beta(eta + M(K - k - 1) / 2, eta + M(K - k - 1) / 2))
                for k in range(1, K))
    return -logc + sum((K - k + 2 * eta - 2) * mp.log(M(Lrows[k - 1][k - 1]))
                       for k in range(2, K + 1))


def unit_rows(rows):
    out = []
    for row in rows:
        nrm = mp.sqrt(sum(M(v) ** 2 for v in row))
        out.append([float(M(v) / nrm) for v in row])
    return out


Lc = unit_rows([[1.0, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.2, 1.1]])
for eta in [2.0, 1.0, 0.7]:
    dens("lkj_corr_cholesky_lpdf", [{"matrix": Lc}, eta], lkj_chol(Lc, eta))
theta = [0.2, 0.5, 0.3]
alpha = [1.5, 2.0, 0.7]
dens("dirichlet_lpdf", [{"vector": theta}, {"vector": alpha}],
     mp.loggamma(sum(map(M, alpha))) - sum(mp.loggamma(M(a)) for a in alpha)
     + sum((M(a) - 1) * mp.log(M(t)) for t, a in zip(theta, alpha)))



def dens_terms(name, args, full, terms, gradient=True):
    """A density whose Stan terms are listed as (mask, value): bit k of mask
    set when the term depends on argument k. Under propto a term is kept
    exactly when one of those arguments is a parameter. The terms must add
    up to the textbook density `full`."""
    total = sum(v for _, v in terms)
    assert abs(total - full) <= M(10) ** -35 * max(1, abs(full)), (name, total, full)
    case = {"name": name, "args": args, "value": r(full),
            "terms": [{"mask": m, "value": r(v)} for m, v in terms]}
    if not gradient:
        case["values_only"] = True
    densities.append(case)


# the common densities, term by term as Stan groups them
for y, mu, sg in [(0.3, -1.0, 2.0), (10.0, 0.0, 0.1)]:
    y, mu, sg = M(y), M(mu), M(sg)
    dens_terms("normal_lpdf", [float(y), float(mu), float(sg)], normal_lpdf(y, mu, sg),
               [(0, -mp.log(mp.sqrt(2 * mp.pi))), (4, -mp.log(sg)), (7, -(y - mu) ** 2 / (2 * sg ** 2))])
    dens_terms("cauchy_lpdf", [float(y), float(mu), float(sg)],
               -mp.log(mp.pi * sg * (1 + ((y - mu) / sg) ** 2)),
               [(0, -mp.log(mp.pi)), (4, -mp.log(sg)), (7, -mp.log1p(((y - mu) / sg) ** 2))])
for y, nu, mu, sg in [(0.3, 3.0, -1.0, 2.0), (-4.0, 0.7, 1.0, 0.5)]:
    y, nu, mu, sg = map(M, (y, nu, mu, sg))
    full = (mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2) - mp.log(mp.sqrt(nu * mp.pi) * sg)
            - (nu + 1) / 2 * mp.log(1 + ((y - mu) / sg) ** 2 / nu))
    dens_terms("student_t_lpdf", [float(y), float(nu), float(mu), float(sg)], full,
               [(0, -mp.log(mp.sqrt(mp.pi))),
                (2, mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2) - mp.log(nu) / 2),
                (8, -mp.log(sg)), (15, -(nu + 1) / 2 * mp.log1p(((y - mu) / sg) ** 2 / nu))])
for y, a, b in [(0.3, 2.0, 1.5), (4.0, 0.5, 3.0)]:
    y, a, b = map(M, (y, a, b))
    dens_terms("exponential_lpdf", [float(y), float(b)], mp.log(b) - b * y, [(2, mp.log(b)), (3, -b * y)])
    dens_terms("gamma_lpdf", [float(y), float(a), float(b)],
               a * mp.log(b) - mp.loggamma(a) + (a - 1) * mp.log(y) - b * y,
               [(2, -mp.loggamma(a)), (6, a * mp.log(b)), (3, (a - 1) * mp.log(y)), (5, -b * y)])
    dens_terms("inv_gamma_lpdf", [float(y), float(a), float(b)],
               a * mp.log(b) - mp.loggamma(a) - (a + 1) * mp.log(y) - b / y,
               [(2, -mp.loggamma(a)), (6, a * mp.log(b)), (3, -(a + 1) * mp.log(y)), (5, -b / y)])
    dens_terms("lognormal_lpdf", [float(y), float(a), float(b)],
               -mp.log(y * b * mp.sqrt(2 * mp.pi)) - (mp.log(y) - a) ** 2 / (2 * b ** 2),
               [(0, -mp.log(mp.sqrt(2 * mp.pi))), (4, -mp.log(b)), (1, -mp.log(y)),
                (7, -(mp.log(y) - a) ** 2 / (2 * b ** 2))])
for y, a, b in [(0.3, 2.0, 1.5), (0.999, 0.5, 3.0)]:
    y, a, b = map(M, (y, a, b))
    dens_terms("beta_lpdf", [float(y), float(a), float(b)],
               (a - 1) * mp.log(y) + (b - 1) * mp.log(1 - y) - mp.log(mp.beta(a, b)),
               [(6, -mp.log(mp.beta(a, b))), (3, (a - 1) * mp.log(y)), (5, (b - 1) * mp.log1p(-y))])
dens_terms("uniform_lpdf", [0.3, -1.0, 2.5], -mp.log(M(3.5)), [(6, -mp.log(M(3.5)))])
for n, N, th in [(3, 10, 0.25), (0, 5, 0.6)]:
    th = M(th)
    rest = n * mp.log(th) + (N - n) * mp.log(1 - th)
    dens_terms("binomial_lpmf", [{"int": n}, {"int": N}, float(th)], lchoose(M(N), M(n)) + rest,
               [(0, lchoose(M(N), M(n))), (4, rest)])
for n, lam in [(3, 2.5), (0, 0.1)]:
    lam = M(lam)
    c = -mp.loggamma(n + 1)
    dens_terms("poisson_lpmf", [{"int": n}, float(lam)], n * mp.log(lam) - lam + c,
               [(0, c), (2, n * mp.log(lam) - lam)])
    dens_terms("poisson_log_lpmf", [{"int": n}, float(mp.log(lam))], n * mp.log(lam) - lam + c,
               [(0, c), (2, n * mp.log(lam) - lam)])
for n, mu, phi in [(3, 2.5, 4.0), (0, 0.7, 0.3)]:
    mu, phi = M(mu), M(phi)
    lc = mp.loggamma(n + phi) - mp.loggamma(n + 1) - mp.loggamma(phi)
    dens_terms("neg_binomial_2_lpmf", [{"int": n}, float(mu), float(phi)], nb2(n, mu, phi),
               [(4, lc), (2, n * mp.log(mu)), (6, -phi * mp.log1p(mu / phi) - n * mp.log(mu + phi))])
    eta = mp.log(mu)
    dens_terms("neg_binomial_2_log_lpmf", [{"int": n}, float(eta), float(phi)], nb2(n, mu, phi),
               [(4, lc), (2, n * eta), (6, -phi * mp.log1p(mu / phi) - n * mp.log(mu + phi))])

# generalised linear models: eta = alpha + x beta (arguments y, x, alpha, beta, ...)
Xg = [[1.0, -0.5], [0.3, 2.0], [-1.2, 0.7]]
alpha_g, beta_g = 0.4, [0.6, -0.3]
eta_g = [M(alpha_g) + sum(M(a) * M(b) for a, b in zip(row, beta_g)) for row in Xg]
yg = [0.5, -1.0, 2.2]
sg_g = 1.3
quad = sum((M(y) - e) ** 2 for y, e in zip(yg, eta_g)) / (2 * M(sg_g) ** 2)
dens_terms("normal_id_glm_lpdf", [{"vector": yg}, {"matrix": Xg}, alpha_g, {"vector": beta_g}, sg_g],
           sum(normal_lpdf(M(y), e, M(sg_g)) for y, e in zip(yg, eta_g)),
           [(0, -3 * mp.log(mp.sqrt(2 * mp.pi))), (16, -3 * mp.log(M(sg_g))), (31, -quad)])
nb = [1, 0, 4]
t = sum(mp.log(inv_logit(e)) if k else mp.log(1 - inv_logit(e)) for k, e in zip([1, 0, 1], eta_g))
dens_terms("bernoulli_logit_glm_lpmf", [{"ints": [1, 0, 1]}, {"matrix": Xg}, alpha_g, {"vector": beta_g}],
           t, [(14, t)])
c = -sum(mp.loggamma(k + 1) for k in nb)
t = sum(k * e - mp.exp(e) for k, e in zip(nb, eta_g))
dens_terms("poisson_log_glm_lpmf", [{"ints": nb}, {"matrix": Xg}, alpha_g, {"vector": beta_g}],
           c + t, [(0, c), (14, t)])
phi_g = M(2.5)
full = sum(nb2(k, mp.exp(e), phi_g) for k, e in zip(nb, eta_g))
dens_terms("neg_binomial_2_log_glm_lpmf",
           [{"ints": nb}, {"matrix": Xg}, alpha_g, {"vector": beta_g}, float(phi_g)], full,
           # Stan's grouping, which differs from neg_binomial_2_log's: -lgamma(n + 1)
           # is a constant, and -phi log(phi) goes with the log of exp(eta) + phi
           [(0, -sum(mp.loggamma(k + 1) for k in nb)),
            (16, sum(phi_g * mp.log(phi_g) - mp.loggamma(phi_g) + mp.loggamma(k + phi_g)
                     for k in nb)),
            (14, sum(k * e for k, e in zip(nb, eta_g))),
            (30, sum(-(k + phi_g) * mp.log(mp.exp(e) + phi_g) for k, e in zip(nb, eta_g)))])

# continuous univariate
for y, mu, s in [(0.3, -1.0, 2.0), (-4.0, 1.5, 0.5), (1.0 + 1e-5, 1.0, 1.0)]:
    y, mu, s = M(y), M(mu), M(s)
    dens_terms("double_exponential_lpdf", [float(y), float(mu), float(s)],
               mp.log(1 / (2 * s) * mp.exp(-abs(y - mu) / s)),
               [(0, -mp.log(2)), (4, -mp.log(s)), (7, -abs(y - mu) / s)])
for y, mu, s in [(0.3, -1.0, 2.0), (-30.0, 1.5, 0.5), (12.0, 0.0, 0.4)]:
    y, mu, s = M(y), M(mu), M(s)
    z = (y - mu) / s
    dens_terms("logistic_lpdf", [float(y), float(mu), float(s)],
               mp.log(mp.exp(-z) / (s * (1 + mp.exp(-z)) ** 2)),
               [(4, -mp.log(s)), (7, -z - 2 * mp.log1p(mp.exp(-z)))])
for y, mu, b in [(0.3, -1.0, 2.0), (-2.0, 1.5, 0.5), (25.0, 0.0, 3.0)]:
    y, mu, b = M(y), M(mu), M(b)
    z = (y - mu) / b
    dens_terms("gumbel_lpdf", [float(y), float(mu), float(b)],
               mp.log(mp.exp(-(z + mp.exp(-z))) / b),
               [(4, -mp.log(b)), (7, -z - mp.exp(-z))])
for y, nu in [(0.3, 2.5), (7.0, 4.0), (1e-4, 0.7)]:
    y, nu = M(y), M(nu)
    full = mp.log(y ** (nu / 2 - 1) * mp.exp(-y / 2) / (2 ** (nu / 2) * mp.gamma(nu / 2)))
    dens_terms("chi_square_lpdf", [float(y), float(nu)], full,
               [(2, -nu / 2 * mp.log(2) - mp.loggamma(nu / 2)), (3, (nu / 2 - 1) * mp.log(y)),
                (1, -y / 2)])
    full = mp.log(2 ** (-nu / 2) / mp.gamma(nu / 2) * y ** (-nu / 2 - 1) * mp.exp(-1 / (2 * y)))
    dens_terms("inv_chi_square_lpdf", [float(y), float(nu)], full,
               [(2, -nu / 2 * mp.log(2) - mp.loggamma(nu / 2)), (3, -(nu / 2 + 1) * mp.log(y)),
                (1, -1 / (2 * y))])
for y, nu, sc in [(0.3, 2.5, 0.8), (7.0, 4.0, 2.0), (0.05, 0.7, 0.1)]:
    y, nu, sc = M(y), M(nu), M(sc)
    h = nu / 2
    full = mp.log(h ** h / mp.gamma(h) * sc ** nu * y ** (-(h + 1)) * mp.exp(-h * sc ** 2 / y))
    dens_terms("scaled_inv_chi_square_lpdf", [float(y), float(nu), float(sc)], full,
               [(2, h * mp.log(h) - mp.loggamma(h)), (6, nu * mp.log(sc)),
                (3, -(h + 1) * mp.log(y)), (7, -h * sc ** 2 / y)])
for y, al, sg in [(0.3, 2.5, 0.8), (7.0, 0.6, 2.0), (0.02, 3.0, 0.1)]:
    y, al, sg = M(y), M(al), M(sg)
    full = mp.log(al / sg * (y / sg) ** (al - 1) * mp.exp(-(y / sg) ** al))
    dens_terms("weibull_lpdf", [float(y), float(al), float(sg)], full,
               [(2, mp.log(al)), (3, (al - 1) * mp.log(y)), (6, -al * mp.log(sg)),
                (7, -(y / sg) ** al)])
    full = mp.log(al / sg * (y / sg) ** (-1 - al) * mp.exp(-(y / sg) ** (-al)))
    dens_terms("frechet_lpdf", [float(y), float(al), float(sg)], full,
               [(2, mp.log(al)), (3, -(al + 1) * mp.log(y)), (6, al * mp.log(sg)),
                (7, -(y / sg) ** (-al))])
for y, sg in [(0.3, 2.5), (7.0, 0.6), (1e-3, 3.0)]:
    y, sg = M(y), M(sg)
    dens_terms("rayleigh_lpdf", [float(y), float(sg)],
               mp.log(y / sg ** 2 * mp.exp(-y ** 2 / (2 * sg ** 2))),
               [(2, -2 * mp.log(sg)), (1, mp.log(y)), (3, -y ** 2 / (2 * sg ** 2))])
for y, ym, al in [(2.3, 1.5, 3.0), (1.5 + 1e-4, 1.5, 0.4), (40.0, 0.2, 1.1)]:
    y, ym, al = M(y), M(ym), M(al)
    dens_terms("pareto_lpdf", [float(y), float(ym), float(al)],
               mp.log(al * ym ** al / y ** (al + 1)),
               [(4, mp.log(al)), (6, al * mp.log(ym)), (5, -(al + 1) * mp.log(y))])
for y, mu, lam, al in [(2.3, 1.5, 3.0, 2.0), (1.5001, 1.5, 0.4, 0.7), (40.0, -2.0, 1.1, 5.0)]:
    y, mu, lam, al = M(y), M(mu), M(lam), M(al)
    dens_terms("pareto_type_2_lpdf", [float(y), float(mu), float(lam), float(al)],
               mp.log(al / lam * (1 + (y - mu) / lam) ** (-(al + 1))),
               [(8, mp.log(al)), (4, -mp.log(lam)), (15, -(al + 1) * mp.log1p((y - mu) / lam))])
for y, mu, k in [(0.3, 0.4, 5.0), (0.999, 0.9, 0.5), (1e-4, 0.02, 30.0)]:
    y, mu, k = M(y), M(mu), M(k)
    a, b = mu * k, (1 - mu) * k
    full = (a - 1) * mp.log(y) + (b - 1) * mp.log(1 - y) - mp.log(mp.beta(a, b))
    dens_terms("beta_proportion_lpdf", [float(y), float(mu), float(k)], full,
               [(4, mp.loggamma(k)), (6, -mp.loggamma(a) - mp.loggamma(b)),
                (7, (a - 1) * mp.log(y) + (b - 1) * mp.log1p(-y))])
for y, mu, k in [(0.3, -1.0, 2.0), (3.0, 0.5, 0.01), (-2.0, 2.5, 40.0)]:
    y, mu, k = M(y), M(mu), M(k)
    full = mp.log(mp.exp(k * mp.cos(y - mu)) / (2 * mp.pi * mp.besseli(0, k)))
    dens_terms("von_mises_lpdf", [float(y), float(mu), float(k)], full,
               [(0, -mp.log(2 * mp.pi)), (4, -mp.log(mp.besseli(0, k))),
                (7, k * mp.cos(mu - y))])
for y, xi, om, al in [(0.3, -1.0, 2.0, 1.5), (-3.0, 0.5, 0.7, 4.0), (2.0, 0.0, 1.0, -0.3),
                      (-1.0, 0.0, 1.0, 30.0)]:
    y, xi, om, al = M(y), M(xi), M(om), M(al)
    z = (y - xi) / om
    full = mp.log(2 / om * mp.npdf(z) * mp.ncdf(al * z))
    dens_terms("skew_normal_lpdf", [float(y), float(xi), float(om), float(al)], full,
               [(0, -mp.log(mp.sqrt(2 * mp.pi))), (4, -mp.log(om)), (7, -z ** 2 / 2),
                (15, mp.log(mp.erfc(-al * z / mp.sqrt(2))))])
for y, mu, sg, lam in [(0.3, -1.0, 2.0, 1.5), (-3.0, 0.5, 0.7, 4.0), (8.0, 0.0, 1.0, 0.3),
                       (-6.0, 0.0, 1.0, 2.0)]:
    y, mu, sg, lam = M(y), M(mu), M(sg), M(lam)
    u = (mu + lam * sg ** 2 - y) / (sg * mp.sqrt(2))
    full = mp.log(lam / 2 * mp.exp(lam / 2 * (2 * mu + lam * sg ** 2 - 2 * y)) * mp.erfc(u))
    dens_terms("exp_mod_normal_lpdf", [float(y), float(mu), float(sg), float(lam)], full,
               [(0, -mp.log(2)), (8, mp.log(lam)),
                (15, lam * (mu + lam * sg ** 2 / 2 - y) + mp.log(mp.erfc(u)))])

# vectorised: containers mixed with shared scalars; each term summed over
# the elements (a shared parameter's terms counted once per element, as
# Stan counts them)


def vectorised(name, per_elem, args_list, vec):
    """per_elem(*scalars) -> (full, [(mask, value)]); args_list: one tuple of
    scalars per element; vec: which arguments are containers (kind, 'int'
    or 'real' or 'vector')."""
    n = len(args_list)
    full = 0
    terms = {}
    for a in args_list:
        f, ts = per_elem(*[M(x) for x in a])
        full += f
        for i, (m, v) in enumerate(ts):
            terms[(i, m)] = terms.get((i, m), 0) + v
    args = []
    for k, kind in enumerate(vec):
        col = [a[k] for a in args_list]
        if kind is None:
            args.append({"int": col[0]} if isinstance(col[0], int) else col[0])
        elif kind == "ints":
            args.append({"ints": col})
        else:
            args.append({kind: col})
    dens_terms(name, args, full, [(m, v) for (i, m), v in sorted(terms.items())])


def gumbel_terms(y, mu, b):
    z = (y - mu) / b
    return mp.log(mp.exp(-(z + mp.exp(-z))) / b), [(4, -mp.log(b)), (7, -z - mp.exp(-z))]


vectorised("gumbel_lpdf", gumbel_terms, [(0.3, 1.0, 2.0), (-1.2, 1.0, 2.0), (4.0, 1.0, 2.0)],
           ["vector", None, None])
vectorised("gumbel_lpdf", gumbel_terms, [(0.3, 1.0, 2.0), (-1.2, 0.5, 0.7), (4.0, -2.0, 1.5)],
           ["array", "vector", "row_vector"])


def chi_terms(y, nu):
    return (mp.log(y ** (nu / 2 - 1) * mp.exp(-y / 2) / (2 ** (nu / 2) * mp.gamma(nu / 2))),
            [(2, -nu / 2 * mp.log(2) - mp.loggamma(nu / 2)), (3, (nu / 2 - 1) * mp.log(y)), (1, -y / 2)])


vectorised("chi_square_lpdf", chi_terms, [(0.3, 2.5), (4.0, 2.5), (1.1, 2.5)], ["vector", None])


def st_terms(y, nu, mu, s):
    return (mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2) - mp.log(mp.sqrt(nu * mp.pi) * s)
            - (nu + 1) / 2 * mp.log(1 + ((y - mu) / s) ** 2 / nu),
            [(0, -mp.log(mp.sqrt(mp.pi))), (2, mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2) - mp.log(nu) / 2),
             (8, -mp.log(s)), (15, -(nu + 1) / 2 * mp.log1p(((y - mu) / s) ** 2 / nu))])


vectorised("student_t_lpdf", st_terms, [(0.3, 3.5, 0.1, 2.0), (-2.0, 3.5, 0.4, 2.0), (5.0, 3.5, -1.0, 2.0)],
           ["vector", None, "vector", None])


def vm_terms(y, mu, k):
    return (mp.log(mp.exp(k * mp.cos(y - mu)) / (2 * mp.pi * mp.besseli(0, k))),
            [(0, -mp.log(2 * mp.pi)), (4, -mp.log(mp.besseli(0, k))), (7, k * mp.cos(mu - y))])


vectorised("von_mises_lpdf", vm_terms, [(0.3, 0.5, 2.0), (-2.0, 0.5, 2.0), (1.5, 0.5, 2.0)],
           ["vector", None, None])


def sn_terms(y, xi, om, al):
    z = (y - xi) / om
    return (mp.log(2 / om * mp.npdf(z) * mp.ncdf(al * z)),
            [(0, -mp.log(mp.sqrt(2 * mp.pi))), (4, -mp.log(om)), (7, -z ** 2 / 2),
             (15, mp.log(mp.erfc(-al * z / mp.sqrt(2))))])


vectorised("skew_normal_lpdf", sn_terms, [(0.3, 0.0, 1.5, 2.0), (-1.0, 0.0, 1.5, -0.5), (2.0, 0.0, 1.5, 1.0)],
           ["vector", None, None, "vector"])


def bp_terms(y, mu, k):
    a, b = mu * k, (1 - mu) * k
    return ((a - 1) * mp.log(y) + (b - 1) * mp.log(1 - y) - mp.log(mp.beta(a, b)),
            [(4, mp.loggamma(k)), (6, -mp.loggamma(a) - mp.loggamma(b)),
             (7, (a - 1) * mp.log(y) + (b - 1) * mp.log1p(-y))])


vectorised("beta_proportion_lpdf", bp_terms, [(0.3, 0.4, 5.0), (0.7, 0.6, 5.0), (0.1, 0.2, 5.0)],
           ["vector", "vector", None])


def bb_terms(n, N, al, b):
    return (lchoose(N, n) + mp.log(mp.beta(n + al, N - n + b)) - mp.log(mp.beta(al, b)),
            [(0, lchoose(N, n)), (12, mp.log(mp.beta(n + al, N - n + b)) - mp.log(mp.beta(al, b)))])


vectorised("beta_binomial_lpmf", bb_terms, [(3, 10, 2.5, 0.7), (0, 4, 2.5, 0.7), (9, 12, 2.5, 0.7)],
           ["ints", "ints", None, None])

# discrete
for n, al, b in [(3, 2.5, 0.7), (0, 0.3, 4.0), (40, 12.0, 0.2), (5000, 1e-9, 0.5)]:
    al, b = M(al), M(b)
    full = lchoose(n + al - 1, M(n)) + al * mp.log(b / (1 + b)) - n * mp.log(1 + b)
    dens_terms("neg_binomial_lpmf", [{"int": n}, float(al), float(b)], full,
               [(2, lchoose(n + al - 1, M(n))), (6, -al * mp.log1p(1 / b) - n * mp.log1p(b))],
               al > 1e-2)
for n, N, al, b in [(3, 10, 2.5, 0.7), (0, 4, 0.3, 4.0), (25, 25, 12.0, 0.2)]:
    al, b = M(al), M(b)
    full = lchoose(M(N), M(n)) + mp.log(mp.beta(n + al, N - n + b)) - mp.log(mp.beta(al, b))
    dens_terms("beta_binomial_lpmf", [{"int": n}, {"int": N}, float(al), float(b)], full,
               [(0, lchoose(M(N), M(n))),
                (12, mp.log(mp.beta(n + al, N - n + b)) - mp.log(mp.beta(al, b)))])
for n, N, a, b in [(2, 5, 4, 6), (0, 3, 2, 7), (4, 4, 4, 1)]:
    full = mp.log(mp.binomial(a, n) * mp.binomial(b, N - n) / mp.binomial(a + b, N))
    dens_terms("hypergeometric_lpmf", [{"int": n}, {"int": N}, {"int": a}, {"int": b}], full,
               [(0, full)])
theta = [0.2, 0.5, 0.3]
for ys in [[2], [1, 3, 3, 2]]:
    full = sum(mp.log(M(theta[y - 1])) for y in ys)
    arg = {"int": ys[0]} if len(ys) == 1 else {"ints": ys}
    dens_terms("categorical_lpmf", [arg, {"vector": theta}], full, [(2, full)])
    beta = [0.5, -1.0, 2.0]
    lse = mp.log(sum(mp.exp(M(x)) for x in beta))
    full = sum(M(beta[y - 1]) - lse for y in ys)
    dens_terms("categorical_logit_lpmf", [arg, {"vector": beta}], full, [(2, full)])
for ns in [[3, 0, 5], [1, 1, 1]]:
    c = mp.loggamma(sum(ns) + 1) - sum(mp.loggamma(k + 1) for k in ns)
    t = sum(k * mp.log(M(p)) for k, p in zip(ns, theta))
    dens_terms("multinomial_lpmf", [{"ints": ns}, {"vector": theta}], c + t, [(0, c), (2, t)])
    beta = [0.5, -1.0, 2.0]
    lse = mp.log(sum(mp.exp(M(x)) for x in beta))
    t = sum(k * (M(x) - lse) for k, x in zip(ns, beta))
    dens_terms("multinomial_logit_lpmf", [{"ints": ns}, {"vector": beta}], c + t, [(0, c), (2, t)])


def ordinal(F, y, lam, c):
    K = len(c) + 1
    hi = 1 if y == 1 else F(M(lam) - M(c[y - 2]))
    lo = 0 if y == K else F(M(lam) - M(c[y - 1]))
    return mp.log(hi - lo)


cuts = [-1.0, 0.5, 2.0]
for name, F in [("ordered_logistic_lpmf", inv_logit), ("ordered_probit_lpmf", Phi)]:
    for y, lam in [(1, 0.3), (2, 0.3), (4, -1.2), (3, 1.1), (2, 9.0)]:
        full = ordinal(F, y, lam, cuts)
        dens_terms(name, [{"int": y}, lam, {"vector": cuts}], full, [(6, full)])
    ys, lams = [1, 4, 2, 3], [0.3, -0.5, 1.5, 0.0]
    full = sum(ordinal(F, y, l, cuts) for y, l in zip(ys, lams))
    dens_terms(name, [{"ints": ys}, {"vector": lams}, {"vector": cuts}], full, [(6, full)])
    cset = [[-1.0, 0.5, 2.0], [-2.0, 0.0, 0.1], [0.5, 1.0, 3.0], [-0.3, 0.2, 0.4]]
    full = sum(ordinal(F, y, l, c) for y, l, c in zip(ys, lams, cset))
    dens_terms(name, [{"ints": ys}, {"vector": lams}, {"vectors": cset}], full, [(6, full)])

# multivariate


def sym(rows):
    """A symmetric matrix as floats, each pair of entries one float."""
    K = len(rows)
    return [[float(rows[min(i, j)][max(i, j)]) for j in range(K)] for i in range(K)]


def mpm(rows):
    return mp.matrix([[M(x) for x in row] for row in rows])


def logdet(A):
    return mp.log(mp.det(A))


Sig = sym([[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.1]])
Om = sym([[1.2, -0.5, 0.1], [-0.5, 2.0, 0.4], [0.1, 0.4, 0.9]])
Lchol = [[1.5, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.2, 1.1]]
ys = [[0.5, -1.0, 2.0], [0.0, 0.3, -0.7], [1.5, 1.0, 0.2]]
mu = [0.1, 0.2, -0.3]
K = 3


def resid(yv, mv):
    return mp.matrix([M(a) - M(b) for a, b in zip(yv, mv)])


def mvn_case(name, yarg, yl, S, Smp, prec=False, chol=False):
    N = len(yl)
    c = -N * K * mp.log(mp.sqrt(2 * mp.pi))
    if chol:
        Sigma = Smp * Smp.T
    else:
        Sigma = mp.inverse(Smp) if prec else Smp
    Sinv = mp.inverse(Sigma)
    ld = logdet(Sigma)
    quad = -sum((resid(yv, mu).T * Sinv * resid(yv, mu))[0] for yv in yl) / 2
    full = sum(-K / 2 * mp.log(2 * mp.pi) - ld / 2
               - (resid(yv, mu).T * Sinv * resid(yv, mu))[0] / 2 for yv in yl)
    dens_terms(name, [yarg, {"vector": mu}, {"matrix": S}], full, [(0, c), (4, -N * ld / 2), (7, quad)])


mvn_case("multi_normal_lpdf", {"vector": ys[0]}, ys[:1], Sig, mpm(Sig))
mvn_case("multi_normal_lpdf", {"vectors": ys}, ys, Sig, mpm(Sig))
mvn_case("multi_normal_prec_lpdf", {"vector": ys[1]}, ys[1:2], Om, mpm(Om), prec=True)
mvn_case("multi_normal_prec_lpdf", {"vectors": ys}, ys, Om, mpm(Om), prec=True)
mvn_case("multi_normal_cholesky_lpdf", {"vectors": ys}, ys, Lchol, mpm(Lchol), chol=True)


def mvt_case(name, yarg, yl, nu, S, Sigma):
    nu = M(nu)
    N = len(yl)
    Sinv = mp.inverse(Sigma)
    ld = logdet(Sigma)
    qs = [(resid(yv, mu).T * Sinv * resid(yv, mu))[0] for yv in yl]
    full = sum(mp.loggamma((nu + K) / 2) - mp.loggamma(nu / 2) - K / 2 * mp.log(nu * mp.pi)
               - ld / 2 - (nu + K) / 2 * mp.log(1 + q / nu) for q in qs)
    dens_terms(name, [yarg, float(nu), {"vector": mu}, {"matrix": S}], full,
               [(2, N * (mp.loggamma((nu + K) / 2) - mp.loggamma(nu / 2) - K / 2 * mp.log(nu))),
                (0, -N * K / 2 * mp.log(mp.pi)), (8, -N * ld / 2),
                (15, -(nu + K) / 2 * sum(mp.log1p(q / nu) for q in qs))])


mvt_case("multi_student_t_lpdf", {"vector": ys[0]}, ys[:1], 4.5, Sig, mpm(Sig))
mvt_case("multi_student_t_lpdf", {"vectors": ys}, ys, 0.8, Sig, mpm(Sig))
mvt_case("multi_student_t_cholesky_lpdf", {"vectors": ys}, ys, 3.0, Lchol,
         mpm(Lchol) * mpm(Lchol).T)

thetas = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]
alphas = [[1.5, 2.0, 0.7], [0.4, 3.0, 1.2]]
for targ, aarg, pairs in [({"vectors": thetas}, {"vectors": alphas}, list(zip(thetas, alphas))),
                          ({"vectors": thetas}, {"vector": alphas[0]}, [(t, alphas[0]) for t in thetas])]:
    ca = sum(mp.loggamma(sum(map(M, a))) - sum(mp.loggamma(M(x)) for x in a) for _, a in pairs)
    ct = sum(sum((M(x) - 1) * mp.log(M(t)) for t, x in zip(th, a)) for th, a in pairs)
    full = sum(mp.log(mp.gamma(sum(map(M, a))) / mp.fprod(mp.gamma(M(x)) for x in a)
                      * mp.fprod(M(t) ** (M(x) - 1) for t, x in zip(th, a))) for th, a in pairs)
    dens_terms("dirichlet_lpdf", [targ, aarg], full, [(2, ca), (3, ct)])

# a correlation matrix from a Cholesky factor with unit rows
Lc_mp = mp.matrix(Lc)
Ycorr = Lc_mp * Lc_mp.T
Yc = sym([[Ycorr[i, j] if i != j else 1.0 for j in range(3)] for i in range(3)])
for eta in [2.0, 1.0, 0.7]:
    Ym = mpm(Yc)
    logc = -lkj_chol([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]], eta)
    dens_terms("lkj_corr_lpdf", [{"matrix": Yc}, eta], -logc + (M(eta) - 1) * logdet(Ym),
               [(2, -logc), (3, (M(eta) - 1) * logdet(Ym))])


def lmgamma(k, x):
    return k * (k - 1) / 4 * mp.log(mp.pi) + sum(mp.loggamma(x + M(1 - j) / 2) for j in range(1, k + 1))


Wm = sym([[1.3, 0.2, -0.1], [0.2, 0.9, 0.3], [-0.1, 0.3, 2.2]])
for nu in [4.5, 2.3, 7.0]:
    nu = M(nu)
    W, S = mpm(Wm), mpm(Sig)
    trSW = sum((mp.inverse(S) * W)[i, i] for i in range(K))
    full = mp.log(mp.det(W) ** ((nu - K - 1) / 2) * mp.exp(-trSW / 2)
                  / (2 ** (nu * K / 2) * mp.det(S) ** (nu / 2) * mp.exp(lmgamma(K, nu / 2))))
    dens_terms("wishart_lpdf", [{"matrix": Wm}, float(nu), {"matrix": Sig}], full,
               [(2, -nu * K / 2 * mp.log(2) - lmgamma(K, nu / 2)), (6, -nu / 2 * logdet(S)),
                (5, -trSW / 2), (3, (nu - K - 1) / 2 * logdet(W))])
    trSWi = sum((S * mp.inverse(W))[i, i] for i in range(K))
    full = mp.log(mp.det(S) ** (nu / 2) * mp.det(W) ** (-(nu + K + 1) / 2) * mp.exp(-trSWi / 2)
                  / (2 ** (nu * K / 2) * mp.exp(lmgamma(K, nu / 2))))
    dens_terms("inv_wishart_lpdf", [{"matrix": Wm}, float(nu), {"matrix": Sig}], full,
               [(2, -lmgamma(K, nu / 2)), (6, nu / 2 * logdet(S)),
                (7, -(nu + K + 1) / 2 * logdet(W)), (5, -trSWi / 2),
                (6, -nu * K / 2 * mp.log(2))])

# distribution functions: each family's F and 1 - F, computed separately so
# that both tails keep their digits


def near(y, scale):
    """Subdivision points that crowd towards y, for integrands that fall
    steeply away from it."""
    return [scale * M(10) ** (k / M(2)) for k in range(-8, 4)]


def lower_quad(f, y, scale):
    pts = [y - d for d in reversed(near(y, scale))]
    return mp.quad(f, [-mp.inf] + pts + [y])


def upper_quad(f, y, scale):
    return mp.quad(f, [y] + [y + d for d in near(y, scale)] + [mp.inf])


def cdfs(fam, args, F, Q):
    """fam_cdf, fam_lcdf and fam_lccdf at args from F = P(X <= y) and
    Q = P(X > y)."""
    assert abs(F + Q - 1) < M(10) ** -40, (fam, args, F, Q)
    if fam != "beta_proportion":
        densities.append({"name": fam + "_cdf", "args": args, "value": r(F)})
    densities.append({"name": fam + "_lcdf", "args": args, "value": r(mp.log(F))})
    densities.append({"name": fam + "_lccdf", "args": args, "value": r(mp.log(Q))})


def P_gamma(a, x):
    return mp.gammainc(a, 0, x, regularized=True)


def Q_gamma(a, x):
    return mp.gammainc(a, x, mp.inf, regularized=True)


def I_beta(a, b, x):
    return mp.betainc(a, b, 0, x, regularized=True)


def J_beta(a, b, x):
    return mp.betainc(a, b, x, 1, regularized=True)


for y, mu, sg in [(0.3, -1.0, 2.0), (-9.0, 0.0, 1.0), (7.0, 0.5, 1.0)]:
    z = (M(y) - M(mu)) / M(sg)
    cdfs("normal", [y, mu, sg], mp.ncdf(z), mp.ncdf(-z))
for y in [0.3, -9.0, 7.0]:
    cdfs("std_normal", [y], mp.ncdf(M(y)), mp.ncdf(-M(y)))
for y, nu, mu, sg in [(0.3, 3.0, -1.0, 2.0), (-40.0, 4.5, 0.0, 1.0), (2.0, 0.8, 0.5, 1.5),
                      (1.0, 30.0, 1.0 - 1e-3, 1.0)]:
    y, nu, mu, sg = map(M, (y, nu, mu, sg))
    t = (y - mu) / sg
    G = I_beta(nu / 2, M(0.5), nu / (nu + t ** 2)) / 2
    F, Q = (G, 1 - G) if t < 0 else (1 - G, G)
    cdfs("student_t", [float(y), float(nu), float(mu), float(sg)], F, Q)
for y, mu, sg in [(0.3, -1.0, 2.0), (-400.0, 0.0, 1.0), (30.0, 0.5, 0.25)]:
    z = (M(y) - M(mu)) / M(sg)
    cdfs("cauchy", [y, mu, sg], mp.atan2(1, -z) / mp.pi, mp.atan2(1, z) / mp.pi)
for y, mu, sg in [(0.3, -1.0, 2.0), (-20.0, 0.0, 1.0), (0.5, 0.5 - 1e-4, 1.5)]:
    z = (M(y) - M(mu)) / M(sg)
    F = mp.exp(z) / 2 if z < 0 else 1 - mp.exp(-z) / 2
    Q = mp.exp(-z) / 2 if z > 0 else 1 - mp.exp(z) / 2
    cdfs("double_exponential", [y, mu, sg], F, Q)
for y, mu, sg in [(0.3, -1.0, 2.0), (-30.0, 0.0, 1.0), (25.0, 0.5, 0.7)]:
    z = (M(y) - M(mu)) / M(sg)
    cdfs("logistic", [y, mu, sg], 1 / (1 + mp.exp(-z)), 1 / (1 + mp.exp(z)))
for y, mu, b in [(0.3, -1.0, 2.0), (-2.5, 0.0, 1.0), (30.0, 0.5, 0.9)]:
    z = (M(y) - M(mu)) / M(b)
    F = mp.exp(-mp.exp(-z))
    cdfs("gumbel", [y, mu, b], F, -mp.expm1(-mp.exp(-z)))
for y, mu, sg in [(0.3, -1.0, 2.0), (1e-5, 0.0, 1.0), (900.0, 0.5, 1.0)]:
    z = (mp.log(M(y)) - M(mu)) / M(sg)
    cdfs("lognormal", [y, mu, sg], mp.ncdf(z), mp.ncdf(-z))
for y, nu in [(0.3, 2.5), (40.0, 3.0), (1e-3, 0.7)]:
    y, nu = M(y), M(nu)
    cdfs("chi_square", [float(y), float(nu)], P_gamma(nu / 2, y / 2), Q_gamma(nu / 2, y / 2))
    cdfs("inv_chi_square", [float(y), float(nu)], Q_gamma(nu / 2, 1 / (2 * y)), P_gamma(nu / 2, 1 / (2 * y)))
for y, nu, sc in [(0.3, 2.5, 0.8), (40.0, 3.0, 1.5), (0.02, 0.7, 2.0)]:
    y, nu, sc = M(y), M(nu), M(sc)
    u = nu * sc ** 2 / (2 * y)
    cdfs("scaled_inv_chi_square", [float(y), float(nu), float(sc)], Q_gamma(nu / 2, u), P_gamma(nu / 2, u))
for y, b in [(0.3, 2.0), (1e-6, 0.5), (30.0, 1.5)]:
    y, b = M(y), M(b)
    cdfs("exponential", [float(y), float(b)], -mp.expm1(-b * y), mp.exp(-b * y))
for y, a, b in [(0.3, 2.5, 1.5), (40.0, 3.0, 0.5), (1e-3, 0.7, 2.0), (12.0, 150.0, 10.0)]:
    y, a, b = M(y), M(a), M(b)
    cdfs("gamma", [float(y), float(a), float(b)], P_gamma(a, b * y), Q_gamma(a, b * y))
    cdfs("inv_gamma", [float(y), float(a), float(b)], Q_gamma(a, b / y), P_gamma(a, b / y))
for y, al, sg in [(0.3, 2.5, 0.8), (7.0, 0.6, 2.0), (0.02, 3.0, 0.1)]:
    y, al, sg = M(y), M(al), M(sg)
    w = (y / sg) ** al
    cdfs("weibull", [float(y), float(al), float(sg)], -mp.expm1(-w), mp.exp(-w))
    w = (y / sg) ** (-al)
    cdfs("frechet", [float(y), float(al), float(sg)], mp.exp(-w), -mp.expm1(-w))
for y, sg in [(0.3, 2.5), (7.0, 0.6), (1e-3, 3.0)]:
    w = M(y) ** 2 / (2 * M(sg) ** 2)
    cdfs("rayleigh", [y, sg], -mp.expm1(-w), mp.exp(-w))
for y, ym, al in [(2.3, 1.5, 3.0), (1.5 + 1e-2, 1.5, 0.4), (400.0, 0.2, 1.1)]:
    Q = (M(ym) / M(y)) ** M(al)
    cdfs("pareto", [y, ym, al], 1 - Q, Q)
for y, mu, lam, al in [(2.3, 1.5, 3.0, 2.0), (1.5001, 1.5, 0.4, 0.7), (40.0, -2.0, 1.1, 5.0)]:
    Q = (1 + (M(y) - M(mu)) / M(lam)) ** (-M(al))
    cdfs("pareto_type_2", [y, mu, lam, al], 1 - Q, Q)
for y, a, b in [(0.3, 2.0, 1.5), (0.999, 0.5, 3.0), (1e-3, 3.0, 0.7), (0.4, 60.0, 80.0)]:
    y, a, b = M(y), M(a), M(b)
    cdfs("beta", [float(y), float(a), float(b)], I_beta(a, b, y), J_beta(a, b, y))
for y, mu, k in [(0.3, 0.4, 5.0), (0.999, 0.9, 0.5), (0.02, 0.1, 30.0)]:
    y, mu, k = M(y), M(mu), M(k)
    cdfs("beta_proportion", [float(y), float(mu), float(k)], I_beta(mu * k, (1 - mu) * k, y),
         J_beta(mu * k, (1 - mu) * k, y))
for y, lo, hi in [(0.3, -1.0, 2.5), (-0.99, -1.0, 2.5)]:
    w = M(hi) - M(lo)
    cdfs("uniform", [y, lo, hi], (M(y) - M(lo)) / w, (M(hi) - M(y)) / w)
for y, xi, om, al in [(0.3, -1.0, 2.0, 1.5), (-3.0, 0.5, 0.7, 4.0), (2.0, 0.0, 1.0, -0.3)]:
    y, xi, om, al = map(M, (y, xi, om, al))

    def sn(t):
        z = (t - xi) / om
        return 2 / om * mp.npdf(z) * mp.ncdf(al * z)
    F, Q = lower_quad(sn, y, om), upper_quad(sn, y, om)
    cdfs("skew_normal", [float(y), float(xi), float(om), float(al)], F, Q)
for y, mu, sg, lam in [(0.3, -1.0, 2.0, 1.5), (-3.0, 0.5, 0.7, 4.0), (8.0, 0.0, 1.0, 0.3)]:
    y, mu, sg, lam = map(M, (y, mu, sg, lam))

    def emn(t):
        u = (mu + lam * sg ** 2 - t) / (sg * mp.sqrt(2))
        return lam / 2 * mp.exp(lam / 2 * (2 * mu + lam * sg ** 2 - 2 * t)) * mp.erfc(u)
    F, Q = lower_quad(emn, y, sg), upper_quad(emn, y, sg)
    cdfs("exp_mod_normal", [float(y), float(mu), float(sg), float(lam)], F, Q)
for y, mu, k in [(0.3, -1.0, 2.0), (3.0, 0.5, 0.01), (-2.0, 2.5, 40.0), (1.0, 7.0, 1.5)]:
    y, mu, k = M(y), M(mu), M(k)

    def vm(t):
        return mp.exp(k * mp.cos(t - mu)) / (2 * mp.pi * mp.besseli(0, k))
    F, Q = mp.quad(vm, [-mp.pi, y]), mp.quad(vm, [y, mp.pi])
    cdfs("von_mises", [float(y), float(mu), float(k)], F, Q)
for n, th in [(0, 0.3), (1, 0.3), (-1, 0.6)]:
    F = 0 if n < 0 else (1 - M(th) if n == 0 else 1)
    if 0 < F < 1:
        cdfs("bernoulli", [{"int": n}, th], F, 1 - F)
for n, N, th in [(3, 10, 0.25), (0, 5, 0.6), (38, 40, 0.1)]:
    F = sum(mp.binomial(N, k) * M(th) ** k * (1 - M(th)) ** (N - k) for k in range(n + 1))
    Q = sum(mp.binomial(N, k) * M(th) ** k * (1 - M(th)) ** (N - k) for k in range(n + 1, N + 1))
    cdfs("binomial", [{"int": n}, {"int": N}, th], F, Q)
for n, lam in [(3, 2.5), (0, 0.1), (80, 35.0)]:
    cdfs("poisson", [{"int": n}, lam], Q_gamma(M(n + 1), M(lam)), P_gamma(M(n + 1), M(lam)))
for n, al, b in [(3, 2.5, 0.7), (0, 0.3, 4.0), (40, 12.0, 0.2)]:
    al, b = M(al), M(b)
    p = b / (1 + b)
    cdfs("neg_binomial", [{"int": n}, float(al), float(b)], I_beta(al, M(n + 1), p), J_beta(al, M(n + 1), p))
for n, mu, phi in [(3, 2.5, 4.0), (0, 0.7, 0.3), (25, 10.0, 2.0)]:
    mu, phi = M(mu), M(phi)
    p = phi / (mu + phi)
    cdfs("neg_binomial_2", [{"int": n}, float(mu), float(phi)], I_beta(phi, M(n + 1), p),
         J_beta(phi, M(n + 1), p))
for n, N, al, b in [(3, 10, 2.5, 0.7), (0, 4, 0.3, 4.0), (20, 25, 12.0, 0.2)]:
    al, b = M(al), M(b)

    def bb(k):
        return mp.binomial(N, k) * mp.beta(k + al, N - k + b) / mp.beta(al, b)
    cdfs("beta_binomial", [{"int": n}, {"int": N}, float(al), float(b)],
         sum(bb(k) for k in range(n + 1)), sum(bb(k) for k in range(n + 1, N + 1)))
# loglogistic (only _cdf), skew double exponential, discrete range, Dirichlet-multinomial
for y, al, b in [(0.3, 1.5, 2.0), (7.0, 2.0, 0.7), (1e-3, 0.5, 3.0)]:
    y, al, b = M(y), M(al), M(b)
    p = (y / al) ** b
    dens_terms("loglogistic_lpdf", [float(y), float(al), float(b)],
               mp.log(b / al * (y / al) ** (b - 1) / (1 + p) ** 2),
               [(7, (b - 1) * mp.log(y) - 2 * mp.log1p(p)), (6, mp.log(b) - b * mp.log(al))])
    densities.append({"name": "loglogistic_cdf", "args": [float(y), float(al), float(b)],
                      "value": r(1 / (1 + (y / al) ** (-b)))})
for y, mu, sg, tau in [(0.3, -1.0, 2.0, 0.3), (-4.0, 1.5, 0.5, 0.8), (1.0, 1.2, 1.0, 0.5)]:
    y, mu, sg, tau = map(M, (y, mu, sg, tau))
    w = (1 - tau) if y < mu else tau
    expo = w * abs(y - mu) / sg
    full = mp.log(2 * tau * (1 - tau) / sg) - 2 * expo
    dens_terms("skew_double_exponential_lpdf", [float(y), float(mu), float(sg), float(tau)], full,
               [(0, mp.log(2)), (4, -mp.log(sg)), (8, mp.log(tau) + mp.log(1 - tau)), (15, -2 * expo)])
    if y < mu:
        F = tau * mp.exp(-2 * (1 - tau) * (mu - y) / sg)
        cdfs("skew_double_exponential", [float(y), float(mu), float(sg), float(tau)], F, 1 - F)
    else:
        Q = (1 - tau) * mp.exp(-2 * tau * (y - mu) / sg)
        cdfs("skew_double_exponential", [float(y), float(mu), float(sg), float(tau)], 1 - Q, Q)
for y, lo, hi in [(3, 1, 6), (1, 1, 1), (-2, -5, 0)]:
    v = -mp.log(hi - lo + 1)
    dens_terms("discrete_range_lpmf", [{"int": y}, {"int": lo}, {"int": hi}], v, [(0, v)])
    if y < hi:
        F = M(y - lo + 1) / (hi - lo + 1)
        cdfs("discrete_range", [{"int": y}, {"int": lo}, {"int": hi}], F, 1 - F)
for ns, al in [([3, 0, 5], [0.5, 2.0, 1.2]), ([1, 1, 1], [3.0, 0.2, 1.0])]:
    al = [M(a) for a in al]
    N, a0 = sum(ns), sum(al)
    full = (mp.log(mp.factorial(N)) - sum(mp.log(mp.factorial(k)) for k in ns)
            + mp.loggamma(a0) - mp.loggamma(N + a0)
            + sum(mp.loggamma(k + a) - mp.loggamma(a) for k, a in zip(ns, al)))
    c = mp.log(N) - sum(mp.log(k) for k in ns if k > 0)
    t = mp.log(mp.beta(a0, N)) - sum(mp.log(mp.beta(a, k)) for k, a in zip(ns, al) if k > 0)
    dens_terms("dirichlet_multinomial_lpmf", [{"ints": ns}, {"vector": [float(a) for a in al]}], full,
               [(0, c), (2, t)])

# vectorised: the product (cdf) and the sums (lcdf, lccdf) over elements
ys, mus = [0.5, -1.5, 2.0], [0.25, 0.0, 1.0]
Fs = [mp.ncdf((M(y) - M(m)) / 2) for y, m in zip(ys, mus)]
densities.append({"name": "normal_cdf", "args": [{"vector": ys}, {"vector": mus}, 2.0], "value": r(mp.fprod(Fs))})
densities.append({"name": "normal_lcdf", "args": [{"vector": ys}, {"vector": mus}, 2.0], "value": r(sum(map(mp.log, Fs)))})
densities.append({"name": "gamma_lccdf", "args": [{"vector": ys[:1] + [1.5, 2.0]}, 2.5, {"array": [1.0, 0.5, 2.0]}],
                  "value": r(sum(mp.log(Q_gamma(M(2.5), M(b) * M(y))) for y, b in zip([0.5, 1.5, 2.0], [1.0, 0.5, 2.0])))})

# beta negative binomial
for n, rr, al, b in [(3, 2.5, 3.0, 1.5), (0, 0.7, 0.5, 4.0), (30, 8.0, 2.2, 6.0)]:
    rr, al, b = M(rr), M(al), M(b)
    full = (mp.loggamma(n + rr) - mp.loggamma(n + 1) - mp.loggamma(rr) + mp.log(mp.beta(al + rr, b + n))
            - mp.log(mp.beta(al, b)))
    c = -mp.loggamma(n + 1)
    dens_terms("beta_neg_binomial_lpmf", [{"int": n}, float(rr), float(al), float(b)], full, [(0, c), (14, full - c)])

# Cholesky-factor Wisharts: the Wishart density of L L' times the Jacobian
# 2^K prod_i L_ii^(K - i + 1) of L -> L L'
LW = [[1.2, 0.0, 0.0], [0.3, 0.9, 0.0], [-0.2, 0.4, 1.5]]
LSm = [[1.5, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.2, 1.1]]
for nu in [4.5, 3.2]:
    nu = M(nu)
    L, LS_ = mpm(LW), mpm(LSm)
    W, S = L * L.T, LS_ * LS_.T
    jac = K * mp.log(2) + sum((K - i) * mp.log(L[i, i]) for i in range(K))
    trSW = sum((mp.inverse(S) * W)[i, i] for i in range(K))
    wish = ((nu - K - 1) / 2 * logdet(W) - trSW / 2 - nu * K / 2 * mp.log(2) - nu / 2 * logdet(S)
            - lmgamma(K, nu / 2))
    cst = K * mp.log(2) * (1 - nu / 2) - lmgamma(K, nu / 2)
    dens_terms("wishart_cholesky_lpdf", [{"matrix": LW}, float(nu), {"matrix": LSm}], wish + jac,
               [(2, cst), (7, wish + jac - cst)])
    trSWi = sum((S * mp.inverse(W))[i, i] for i in range(K))
    iwish = (nu / 2 * logdet(S) - (nu + K + 1) / 2 * logdet(W) - trSWi / 2 - nu * K / 2 * mp.log(2)
             - lmgamma(K, nu / 2))
    dens_terms("inv_wishart_cholesky_lpdf", [{"matrix": LW}, float(nu), {"matrix": LSm}], iwish + jac,
               [(2, cst), (7, iwish + jac - cst)])
# multi_gp: the rows of y independent N (0, Sigma / w_i)
Yg = [[0.5, -1.0, 2.0], [0.1, 0.3, -0.6]]
wg = [1.5, 0.4]
for name, Sarg, Smp in [("multi_gp_lpdf", Sig, mpm(Sig)), ("multi_gp_cholesky_lpdf", Lchol, mpm(Lchol))]:
    Sigma = Smp if name == "multi_gp_lpdf" else Smp * Smp.T
    Sinv = mp.inverse(Sigma)
    quads = [(mp.matrix(row).T * Sinv * mp.matrix(row))[0] for row in Yg]
    full = sum(-3 * mp.log(mp.sqrt(2 * mp.pi)) - (logdet(Sigma) - 3 * mp.log(M(w))) / 2 - M(w) * q / 2
               for w, q in zip(wg, quads))
    dens_terms(name, [{"matrix": Yg}, {"matrix": Sarg}, {"vector": wg}], full,
               [(0, -6 * mp.log(mp.sqrt(2 * mp.pi))), (2, -logdet(Sigma)), (4, 1.5 * sum(mp.log(M(w)) for w in wg)),
                (7, -sum(M(w) * q for w, q in zip(wg, quads)) / 2)])
# more GLMs
nbin, Nbin = [3, 0, 5], [5, 4, 9]
t = sum(k * mp.log(inv_logit(e)) + (Nn - k) * mp.log(1 - inv_logit(e)) for k, Nn, e in zip(nbin, Nbin, eta_g))
c = sum(lchoose(M(Nn), M(k)) for k, Nn in zip(nbin, Nbin))
dens_terms("binomial_logit_glm_lpmf", [{"ints": nbin}, {"ints": Nbin}, {"matrix": Xg}, alpha_g, {"vector": beta_g}],
           c + t, [(0, c), (28, t)])
Bc = [[0.5, -0.2, 1.0], [0.3, 0.8, -0.5]]
ac = [0.1, -0.4, 0.2]
yc = [1, 3, 2]
t = 0
for row, y in zip(Xg, yc):
    lo = [M(ac[k]) + sum(M(row[m]) * M(Bc[m][k]) for m in range(2)) for k in range(3)]
    t += lo[y - 1] - mp.log(sum(mp.exp(v) for v in lo))
dens_terms("categorical_logit_glm_lpmf", [{"ints": yc}, {"matrix": Xg}, {"vector": ac}, {"matrix": Bc}], t, [(14, t)])
yo = [1, 4, 2]
t = sum(ordinal(inv_logit, y, float(e - M(alpha_g)), cuts) for y, e in zip(yo, eta_g))
dens_terms("ordered_logistic_glm_lpmf", [{"ints": yo}, {"matrix": Xg}, {"vector": beta_g}, {"vector": cuts}],
           t, [(14, t)])

# the Poisson binomial, by summing over every set of successes
def pb_mass(theta):
    """P(count = k) for k = 0 .. len(theta), from the 2^n outcomes."""
    from itertools import product
    probs = [M(0)] * (len(theta) + 1)
    for outcome in product([0, 1], repeat=len(theta)):
        p = M(1)
        for o, t in zip(outcome, theta):
            p *= M(t) if o else 1 - M(t)
        probs[sum(outcome)] += p
    return probs


pb_theta = [0.2, 0.55, 0.7, 0.95, 0.35]
pb_thetas = [[0.1, 0.6, 0.3], [0.8, 0.9, 0.45]]
for y in [0, 2, 5]:
    P = pb_mass(pb_theta)
    dens("poisson_binomial_lpmf", [{"int": y}, {"vector": pb_theta}], mp.log(P[y]))
    dens("poisson_binomial_cdf", [{"int": y}, {"vector": pb_theta}], sum(P[: y + 1]))
    dens("poisson_binomial_lcdf", [{"int": y}, {"vector": pb_theta}], mp.log(sum(P[: y + 1])))
    if y < len(pb_theta):
        dens("poisson_binomial_lccdf", [{"int": y}, {"vector": pb_theta}], mp.log(sum(P[y + 1:])))
ys = [1, 3]
Ps = [pb_mass(t) for t in pb_thetas]
dens("poisson_binomial_lpmf", [{"ints": ys}, {"vectors": pb_thetas}],
     sum(mp.log(P[y]) for P, y in zip(Ps, ys)))
dens("poisson_binomial_cdf", [{"ints": ys}, {"vectors": pb_thetas}],
     mp.fprod(sum(P[: y + 1]) for P, y in zip(Ps, ys)))
dens("poisson_binomial_lccdf", [{"ints": [0, 2]}, {"vectors": pb_thetas}],
     sum(mp.log(sum(P[y + 1:])) for P, y in zip(Ps, [0, 2])))
P = pb_mass(pb_thetas[0])
dens("poisson_binomial_lcdf", [{"ints": [0, 1, 2]}, {"vector": pb_thetas[0]}],
     sum(mp.log(sum(P[: y + 1])) for y in [0, 1, 2]))

print(json.dumps({"functions": functions, "densities": densities}, indent=1))
