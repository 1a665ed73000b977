#!/usr/bin/env python3
"""multiprocessing.Queue beside bench/objects.cpp's queue measure: items/s
from a producer process to a consumer in the parent, 100 B and 1 MB items,
timed from the producer's go to the last item got. Prints one JSON object.
--quick (or FIBER_BENCH_QUICK=1) divides the counts by 10."""
import json
import multiprocessing as mp
import os
import sys
import time


def produce(go, q, n, size):
    go.get()
    item = b"x" * size
    for _ in range(n):
        q.put(item)


def items_per_s(n, size):
    go, q = mp.Queue(), mp.Queue()
    p = mp.Process(target=produce, args=(go, q, n, size))
    p.start()
    t0 = time.perf_counter()
    go.put(1)
    for _ in range(n):
        q.get()
    s = time.perf_counter() - t0
    p.join()
    return n / s


if __name__ == "__main__":
    quick = "--quick" in sys.argv or os.environ.get("FIBER_BENCH_QUICK", "0") not in ("", "0")
    scale = 10 if quick else 1
    print(json.dumps({"queue": {"items_per_s_100B": items_per_s(20000 // scale, 100),
                                "items_per_s_1MB": items_per_s(500 // scale, 1 << 20)}}))
