#!/usr/bin/env python3
"""multiprocessing.Queue beside bench/queues.cpp's queue measure:
`mp_queue.py BYTES N` prints the items/s of N items of BYTES each from a
producer process to a consumer in the parent, timed from the producer's go
(once it is ready) to the last item got. bench/queues.cpp runs it round by round."""
import multiprocessing as mp
import sys
import time


def produce(ready, go, q, n, size):
    ready.put(1)
    go.get()
    item = b"x" * size
    for _ in range(n):
        q.put(item)


def items_per_s(n, size):
    ready, go, q = mp.Queue(), mp.Queue(), mp.Queue()
    p = mp.Process(target=produce, args=(ready, go, q, n, size))
    p.start()
    ready.get()  # its start is not the queue's time
    t0 = time.perf_counter()
    go.put(1)
    for _ in range(n):
        q.get()
    s = time.perf_counter() - t0
    p.join()
    return n / s


if __name__ == "__main__":
    print(items_per_s(int(sys.argv[2]), int(sys.argv[1])))
