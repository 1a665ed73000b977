#!/usr/bin/python3
"""Lines up the hop marks of bench/apply_stages (DIR/*.hops, one
"NANOSECONDS NAME" a line per process) and prints, for each workload, the
mean time of each leg in microseconds, as one table and one JSON line.

  stages_report.py DIR

Back-to-back apply: each call from "submit" to "user-woke", the first mark
of each hop after its submit (one call is in flight at a time). Rounds of
five: each round from its first submit to the last "user-woke" before the
next round's, taking the last mark of each hop (the one the round waits
for). The first tenth of each workload is left out (warm-up).
"""
import glob
import json
import statistics
import sys

HOPS = [
    ("submit", "the caller hands the call to the master's I/O thread"),
    ("io-took", "the I/O thread takes it (eventfd wake)"),
    ("io-send", "the pool deals it: a task in the table, TASK encoded"),
    ("w-got-task", "ZeroMQ out: send, both libzmq I/O threads, TCP, CURVE, the worker's read"),
    ("w-ran", "the worker parses it and runs the function"),
    ("w-result-out", "the call's puts flushed, its result encoded"),
    ("io-got-result", "ZeroMQ back, the I/O thread woken from its poll, routed to the pool"),
    ("io-completed", "the result checked, decoded and handed to the caller's batch"),
    ("user-woke", "the caller's thread wakes (condition variable)"),
]
NAMES = [h for h, _ in HOPS]


def marks(d):
    out = []
    for path in glob.glob(f"{d}/*.hops"):
        with open(path) as f:
            for line in f:
                words = line.split()
                if len(words) == 2:  # a process killed while it wrote leaves a cut line
                    out.append((int(words[0]), words[1]))
    out.sort()
    return out


def split(events):
    """The two workloads: split at the first gap over 150 ms between submits."""
    submits = [i for i, (_, n) in enumerate(events) if n == "submit"]
    for a, b in zip(submits, submits[1:]):
        if events[b][0] - events[a][0] > 150e6:
            return events[:b], events[b:]
    return events, []


def legs_apply(events):
    calls, current = [], None
    for t, name in events:
        if name == "submit":
            current = {"submit": t}
        elif current is not None and name in NAMES and name not in current:
            current[name] = t
            if name == "user-woke":
                if all(n in current for n in NAMES):
                    calls.append(current)
                current = None
    return calls[len(calls) // 10:]


def legs_rounds(events):
    rounds, current, submits = [], None, 0
    for t, name in events:
        if name == "submit":
            if submits % 5 == 0:
                if current and all(n in current for n in NAMES):
                    rounds.append(current)
                current = {}
            submits += 1
        if current is not None and name in NAMES:
            current.setdefault("first-" + name, t)
            current[name] = t  # the last
    return rounds[len(rounds) // 10:]


def table(title, samples, first):
    print(title)
    print(f"  {'leg':>30} {'mean us':>9} {'median':>9}")
    rows, total = [], 0.0
    for (a, _), (b, why) in zip(HOPS, HOPS[1:]):
        start = [s[("first-" + a) if first and a == "submit" else a] for s in samples]
        each = [(s[b] - t0) / 1e3 for s, t0 in zip(samples, start)]
        us, median = statistics.mean(each), statistics.median(each)
        total += us
        rows.append({"from": a, "to": b, "mean_us": round(us, 1), "median_us": round(median, 1),
                     "what": why})
        print(f"  {a:>13} -> {b:<13} {us:9.1f} {median:9.1f}   {why}")
    print(f"  {'in all':>30} {total:9.1f} us   ({len(samples)} samples)")
    return {"samples": len(samples), "legs": rows, "total_us": round(total, 1)}


def main():
    apply_events, round_events = split(marks(sys.argv[1]))
    out = {}
    calls = legs_apply(apply_events)
    if calls:
        out["apply"] = table("Back-to-back apply(noop), one worker: mean per leg", calls, False)
    rounds = legs_rounds(round_events)
    if rounds:
        out["rounds_1ms"] = table(
            "Rounds of 5 x 1 ms on 5 workers, the last of each hop (the one the round waits"
            " for), from the round's first submit", rounds, True)
    print(json.dumps(out))


main()
