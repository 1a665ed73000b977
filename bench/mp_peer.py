#!/usr/bin/python3
"""The peer: the same measurements as overhead.cpp with Python's
multiprocessing.Pool (stdlib only; run with Debian's /usr/bin/python3).

- rounds: 5 workers run 5 x 1 s / d tasks that sleep d (100, 10, 1 ms), 5 at a
  time with apply_async, each round waited for before the next;
- apply: the synchronous round trip of a no-op task, per call;
- throughput: no-op tasks through imap_unordered with chunksize 1, and
  through map with its default chunking.

Prints one JSON object on stdout. --quick (or FIBER_BENCH_QUICK=1) divides
every count by 10.
"""
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time

WORKERS = 5


def nap(us):
    time.sleep(us / 1e6)


def noop(x):
    return x


def times(round_seconds):
    return {
        "total_s": sum(round_seconds),
        "round_ms": 1e3 * statistics.fmean(round_seconds),
        "round_median_ms": 1e3 * statistics.median(round_seconds),
    }


def rounds(pool, us, n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        results = [pool.apply_async(nap, (us,)) for _ in range(WORKERS)]
        for r in results:
            r.get()
        out.append(time.perf_counter() - t0)
    return out


def main():
    quick = "--quick" in sys.argv or os.environ.get("FIBER_BENCH_QUICK", "0") not in ("", "0")
    div = 10 if quick else 1
    with multiprocessing.Pool(WORKERS) as pool:
        for i in range(100):  # warm-up: every worker started
            pool.apply(noop, (i,))
        out_rounds = {}
        for ms in (100, 10, 1):
            tasks = WORKERS * 1000 // ms // div
            n = tasks // WORKERS
            print(f"multiprocessing: rounds of {ms} ms sleeps: {n} rounds", file=sys.stderr)
            out_rounds[f"{ms}ms"] = {"sleep_ms": ms, "tasks": tasks, "rounds": n,
                                     "multiprocessing": times(rounds(pool, ms * 1000, n))}

        print("multiprocessing: apply round trip", file=sys.stderr)
        calls = 5000 // div
        for i in range(200):
            pool.apply(noop, (i,))
        rtt = []
        for i in range(calls):
            t0 = time.perf_counter()
            pool.apply(noop, (i,))
            rtt.append(1e6 * (time.perf_counter() - t0))

        print("multiprocessing: throughput", file=sys.stderr)
        n = 20000 // div
        items = list(range(n))
        t0 = time.perf_counter()
        count = sum(1 for _ in pool.imap_unordered(noop, items, chunksize=1))
        imap_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        mapped = pool.map(noop, items)
        map_s = time.perf_counter() - t0
        assert count == n and len(mapped) == n

    json.dump({
        "python": platform.python_version(),
        "start_method": multiprocessing.get_start_method(),
        "workers": WORKERS,
        "rounds": out_rounds,
        "apply": {"calls": calls, "mean_us": statistics.fmean(rtt),
                  "median_us": statistics.median(rtt), "min_us": min(rtt)},
        "throughput": {"tasks": n, "imap_unordered_chunksize1_per_s": n / imap_s,
                       "map_default_chunking_per_s": n / map_s},
    }, sys.stdout)
    print()


if __name__ == "__main__":
    main()
