"""The table of bench/run --containers: medians of the local and container
runs and their ratio. Arguments: the first-result file (lines "BACKEND
MS_TO_FIRST MS_TO_END"), the measure file (one JSON object a line:
{"backend": B, "result": containers --measure's object}), the engine."""
import json
import statistics
import sys

first, measure, engine = sys.argv[1:]
runs = {}
for line in open(first):
    b, to_first, to_end = line.split()
    runs.setdefault(b, []).append((int(to_first), int(to_end)))
res = {}
for line in open(measure):
    m = json.loads(line)
    res.setdefault(m["backend"], []).append(m["result"])
med = statistics.median


def row(name, local, cont, unit):
    print(f"  {name:<44} {local:>10.1f} {cont:>10.1f} {cont / local:>7.2f}  {unit}")


print(f"Workers in containers ({engine}) beside local ones: medians of runs that alternate")
print(f"  {'':<44} {'local':>10} {engine:>10} {'ratio':>7}")
n = len(runs["local"])
row(f"fiber run to first result ({n} runs)", med(r[0] for r in runs["local"]),
    med(r[0] for r in runs[engine]), "ms")
row(f"fiber run to its end ({n} runs)", med(r[1] for r in runs["local"]),
    med(r[1] for r in runs[engine]), "ms")
n = len(res["local"])
calls = int(res["local"][0]["apply_calls"])
row(f"apply round trip, median of {calls} ({n} runs)",
    med(r["apply_median_us"] for r in res["local"]),
    med(r["apply_median_us"] for r in res[engine]), "us")
tasks = int(res["local"][0]["noop_tasks"])
row(f"no-op throughput, {tasks} tasks ({n} runs)", med(r["noop_per_s"] for r in res["local"]),
    med(r["noop_per_s"] for r in res[engine]), "tasks/s")
