#!/usr/bin/python3
"""Combines the JSON the bench programs printed into one table of results and
ratios (on stdout) and one JSON file. Called by bench/run:

  report.py OUT.json QUICK DIR

where DIR holds fiber.json (with the raw ZeroMQ floor measured beside it),
mp.json, memory_<N>.json and zmq_memory_<N>.json as bench/run wrote them.
"""
import datetime
import glob
import json
import os
import platform
import subprocess
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    free = subprocess.run(["free", "-h"], capture_output=True, text=True).stdout
    return {"nproc": os.cpu_count(), "cpu": model, "kernel": platform.release(),
            "free_h": free.strip(), "loadavg_at_end": os.getloadavg()}


def main():
    out_path, quick, d = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
    fib, mp = load(f"{d}/fiber.json"), load(f"{d}/mp.json")
    zmq = fib["raw_zmq"]
    memory = sorted((load(p) for p in glob.glob(f"{d}/memory_*.json")),
                    key=lambda m: m["workers"])
    zmq_memory = sorted((load(p) for p in glob.glob(f"{d}/zmq_memory_*.json")),
                        key=lambda m: m["workers"])
    raw = zmq["tcp"]["mean_us"]
    # The floor the latency targets are set against: a raw ZeroMQ round trip
    # with CURVE over the same transport (fiber's every connection has it);
    # the plain one stays beside it.
    curve = zmq["tcp_curve"]["mean_us"]
    lines = []
    p = lines.append

    p("Rounds: 5 tasks at a time on 5 workers, mean (median) ms per round")
    p(f"{'sleep':>6} {'rounds':>6} {'serial':>9} {'parallel floor':>15} {'fiber':>15} "
      f"{'multiprocessing':>16} {'fiber over floor':>20} {'mp over floor':>20}")
    over = {}
    for key, r in fib["rounds"].items():
        m = mp["rounds"][key]["multiprocessing"]
        floor = r["parallel_floor"]["round_ms"]
        f_over = 1e3 * (r["fiber"]["round_ms"] - floor)
        m_over = 1e3 * (m["round_ms"] - floor)
        over[key] = {"fiber_us": f_over, "multiprocessing_us": m_over,
                     "fiber_raw_rt": f_over / raw, "multiprocessing_raw_rt": m_over / raw,
                     "fiber_curve_rt": f_over / curve, "multiprocessing_curve_rt": m_over / curve}

        def cell(t):
            return f"{t['round_ms']:.3f} ({t['round_median_ms']:.3f})"
        p(f"{key:>6} {r['rounds']:>6} {r['serial_floor']['round_ms']:>9.3f} "
          f"{cell(r['parallel_floor']):>15} {cell(r['fiber']):>15} {cell(m):>16} "
          f"{f'{f_over:.0f} us = {f_over / curve:.2f} RT':>20} "
          f"{f'{m_over:.0f} us = {m_over / curve:.2f} RT':>20}")
    p("  (floor and fiber rounds alternate; RT = one raw ZeroMQ round trip with CURVE, mean, below)")
    p("")
    p("Round trip of one call, us: mean / median / min, and mean as a multiple of raw ZeroMQ"
      " (plain, and with CURVE)")
    p("  (raw ZeroMQ and fiber measured in alternating blocks of 100 calls)")
    rows = [("raw ZeroMQ REQ/REP, tcp", zmq["tcp"]),
            ("raw ZeroMQ REQ/REP, tcp+CURVE", zmq["tcp_curve"]),
            ("fiber apply(noop)", fib["apply"]),
            ("multiprocessing apply(noop)", mp["apply"])]
    for name, r in rows:
        p(f"  {name:<32} {r['mean_us']:8.1f} {r['median_us']:8.1f} {r['min_us']:8.1f}"
          f"   {r['mean_us'] / raw:5.2f} x   {r['mean_us'] / curve:5.2f} x CURVE")
    p("")
    p("Throughput of no-op tasks, tasks/s")
    ft, mt = fib["throughput"], mp["throughput"]
    for label, k in (("imap_unordered, chunksize 1", "imap_unordered_chunksize1_per_s"),
                     ("map, default chunking", "map_default_chunking_per_s")):
        p(f"  {label:<30} fiber {ft[k]:>10.0f}   multiprocessing {mt[k]:>10.0f}"
          f"   fiber/mp {ft[k] / mt[k]:5.2f} x")
    p("")
    p("Master memory (VmRSS) per connected worker")
    for m in memory:
        p(f"  {m['workers']:>4} workers: {m['rss_before_kb']:>7} KB before, "
          f"{m['rss_after_kb']:>7} KB after all ready ({m['all_ready_s']:.2f} s)"
          f" = {m['per_worker_kb']:.1f} KB per worker")
    slope = None
    if len(memory) >= 2:
        a, b = memory[-2], memory[-1]
        slope = (b["rss_after_kb"] - a["rss_after_kb"]) / (b["workers"] - a["workers"])
        p(f"  slope from {a['workers']} to {b['workers']} workers: {slope:.1f} KB per worker")
    p("  floor: bare ZeroMQ ROUTER (CURVE) with N DEALER processes, no framework")
    for m in zmq_memory:
        p(f"  {m['workers']:>4} peers:   {m['rss_before_kb']:>7} KB before, "
          f"{m['rss_after_kb']:>7} KB after all heard from"
          f" = {m['per_worker_kb']:.1f} KB per peer")
    mem256 = next((m for m in memory if m["workers"] == 256), None)
    p("")

    targets = [
        ("1 ms rounds: time per round above the parallel floor <= 1.5 ZeroMQ+CURVE round trips",
         over["1ms"]["fiber_curve_rt"], "<=", 1.5, "RT"),
        ("sync apply round trip <= 1.25 x ZeroMQ+CURVE ping-pong",
         fib["apply"]["mean_us"] / curve, "<=", 1.25, "x"),
        ("imap_unordered chunksize 1 throughput >= 10 x multiprocessing",
         ft["imap_unordered_chunksize1_per_s"] / mt["imap_unordered_chunksize1_per_s"],
         ">=", 10.0, "x"),
        ("map default chunking throughput >= 2 x multiprocessing (issue 12)",
         ft["map_default_chunking_per_s"] / mt["map_default_chunking_per_s"], ">=", 2.0, "x"),
        ("master memory <= 16 KB per connected worker (256 workers)",
         mem256["per_worker_kb"] if mem256 else None, "<=", 16.0, "KB"),
    ]
    p("Targets")
    results = []
    for name, value, op, limit, unit in targets:
        met = value is not None and (value <= limit if op == "<=" else value >= limit)
        shown = "not measured" if value is None else f"{value:.2f} {unit}"
        p(f"  {'met    ' if met else 'NOT met'}  {name}: {shown}")
        results.append({"target": name, "value": value, "limit": limit, "op": op,
                        "unit": unit, "met": met})

    text = "\n".join(lines)
    print(text)
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": quick, "machine": machine(),
        "fiber": fib, "multiprocessing": mp, "memory": memory, "zmq_memory_floor": zmq_memory,
        "ratios": {"rounds_over_parallel_floor": over,
                   "memory_slope_kb_per_worker": slope},
        "targets": results, "table": text,
    }
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print(f"\nwrote {out_path}")


if __name__ == "__main__":
    main()
