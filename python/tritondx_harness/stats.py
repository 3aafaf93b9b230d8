"""Plain statistics and sizes used by the timing verbs (no GPU needed)."""
import math

L2_BYTES_H200 = 60 * 1024 * 1024  # fallback when the device does not say


def quantile(sorted_values, q):
    """The q-quantile (0..1) of already sorted values, linear interpolation."""
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = math.ceil(pos)
    if lo == hi:
        return float(sorted_values[lo])
    return float(sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo))


def summarize(times_ms):
    """Median, quartiles, IQR, min, max, mean and count of run times (ms)."""
    v = sorted(float(t) for t in times_ms)
    if not v:
        return {"n": 0, "median_ms": None, "q1_ms": None, "q3_ms": None, "iqr_ms": None,
                "min_ms": None, "max_ms": None, "mean_ms": None}
    q1, q3 = quantile(v, 0.25), quantile(v, 0.75)
    return {"n": len(v), "median_ms": quantile(v, 0.5), "q1_ms": q1, "q3_ms": q3, "iqr_ms": q3 - q1,
            "min_ms": v[0], "max_ms": v[-1], "mean_ms": sum(v) / len(v)}


def paired(base_ms, cand_ms):
    """The candidate's time over the baseline's, rep by rep (the two were
    timed in the same repetition, interleaved, so drift of the card cancels in
    each ratio): the median ratio and its 95 % interval by the sign test (the
    order statistics k and n + 1 - k of the sorted ratios, k the largest with
    P(Binomial(n, 1/2) < k) <= 0.025), how many ratios are below 1, and n.
    None with fewer than 6 pairs (no such interval)."""
    r = sorted(c / b for b, c in zip(base_ms, cand_ms) if b and b > 0 and c and c > 0)
    n = len(r)
    if n < 6:
        return None
    # the lower tail P(X <= j) of Binomial(n, 1/2), summed in logs
    k, tail = 0, 0.0
    for j in range(n):
        tail += math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2))
        if tail > 0.025:
            break
        k = j + 1
    k = max(k, 1)
    return {"n": n, "ratio_median": quantile(r, 0.5), "ratio_lo": r[k - 1], "ratio_hi": r[n - k],
            "below": sum(1 for x in r if x < 1)}


def rotation_count(set_bytes, l2_bytes=L2_BYTES_H200, factor=4, max_copies=1024, budget_bytes=None):
    """How many copies of the inputs to rotate among so that together they
    are `factor` times the L2 and a run never finds its inputs in cache.

    At least 1 copy; at most max_copies, and no more than fit in budget_bytes.
    """
    if set_bytes <= 0:
        return 1
    n = math.ceil(factor * l2_bytes / set_bytes)
    n = max(1, min(n, max_copies))
    if budget_bytes is not None:
        n = max(1, min(n, int(budget_bytes // set_bytes)))
    return n


def repetitions(estimate_ms, budget_ms=300.0, lo=10, hi=2000):
    """How many timed runs fit the budget, given one run's estimated time."""
    if not estimate_ms or estimate_ms <= 0:
        return hi
    return int(max(lo, min(hi, budget_ms // estimate_ms)))


def batching(estimate_ms, reps, target_ms=0.5, hi=32, lo_reps=20):
    """(calls an event pair spans, event pairs): enough calls that a batch
    runs about target_ms, and as many fewer pairs, so that the timed total
    stays what `reps` single calls would take (at least lo_reps pairs)."""
    if not estimate_ms or estimate_ms <= 0 or estimate_ms >= target_ms:
        return 1, reps
    k = int(min(hi, max(1, round(target_ms / estimate_ms))))
    return k, max(lo_reps, -(-reps // k))


def rates(median_ms, nbytes=None, flops=None):
    """Achieved bytes/s and FLOP/s for a median run time."""
    out = {"bytes_per_s": None, "flops_per_s": None}
    if not median_ms or median_ms <= 0:
        return out
    sec = median_ms / 1e3
    if nbytes:
        out["bytes_per_s"] = nbytes / sec
    if flops:
        out["flops_per_s"] = flops / sec
    return out
