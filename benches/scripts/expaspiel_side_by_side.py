#!/usr/bin/env python3
"""darkhex and exp-a-spiel side by side on 3x3 Dark Hex, classic and abrupt,
in one run on the same machine with the same thread count.

exp-a-spiel (Rudolph et al. 2025, "Reevaluating Policy Gradient Methods for
Imperfect-Information Games") is a C++ library with Python bindings. Build it
outside the repository from its public source (github gabrfarina/exp-a-spiel:
C++20 with OpenMP, Boost headers of 1.81 or later for unordered_flat_map,
pybind11, scikit-build-core), installed into a virtual environment of its
own, and pass that environment (or its python) with --eas. This script never
builds it. From the repository root:

    python3 benches/scripts/expaspiel_side_by_side.py --eas /path/to/venv --threads 2
    python3 benches/scripts/expaspiel_side_by_side.py --eas /path/to/venv --quick

For each game, each engine runs in its own process with OMP_NUM_THREADS,
RAYON_NUM_THREADS and darkhex's --threads all set to N, and the script
reports wall and CPU seconds and peak resident memory of:

  exp-a-spiel (one process: `DhTraverser` or `AbruptDhTraverser`)
    - its tables: constructing the traverser;
    - one exact exploitability of the uniform strategies
      (`ev_and_exploitability`; the peak includes the tables);
    - predictive CFR+ (`CfrSolver` with `CfrConf.PCFRP`), `step()` called
      --eas-steps times (default 2). Its updates alternate: one step walks
      every history for both players' gradients and updates one player, so
      two steps make one iteration of darkhex's alternating PCFR+. Before the
      solver the process's peak is reset (/proc/self/clear_refs), and the
      peak reported is that of a process holding tables, solver and step.
  darkhex
    - `darkhex info GAME --json --threads N`: its tables alone, and the
      information-state counts;
    - `darkhex exploit GAME uniform --json --threads N`: tables and one exact
      exploitability pass (the pass alone is that minus the tables);
    - `stream_passes GAME 1 pcfr+ f64` (darkhex-benches): tables, then one
      PCFR+ iteration, one pass per player.

It checks that both count the same decision information states and give
the uniform policy the same exploitability and best-response values, and
prints a markdown table. exp-a-spiel's `expl` is a pair of exploitabilities
of each player's strategy, not best-response values: expl[0] = BR1(x) -
u1(x, y), how much player 1 gains by best-responding to player 0's x, and
expl[1] = BR0(y) - u0(x, y); so darkhex's NashConv is expl[0] + expl[1],
its exploitability half that, BR0 = expl[1] + ev0 and BR1 = expl[0] - ev0.

exp-a-spiel's traverser holds eleven arrays of 9 doubles for every
information state (nine gradient buffers per player, gradients, sequence-form
strategies), 72 bytes each, whatever the thread count, and one exploitability
adds five more (the policy, gradients and best responses copied out): about
5.2 GB and 7.4 GB on classic 3x3 (6.1 million information states), 23 GB and
33 GB on abrupt (27.3 million). A game where that would not fit in the
memory available is skipped (--force-eas runs it anyway); the child's
address space is capped at --eas-max-memory-gb (default: MemAvailable) so
that running out ends it with an error rather than waking the kernel's OOM
killer.

With --quick, as a check of the plumbing in seconds: exp-a-spiel's
`CornerDh` (3x3 classic with the first two stones fixed) against darkhex on
dark_hex 2x3; different games, so the values are printed, not compared.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import threading
import time

# Measured with darkhex (docs/results/dark-hex-3x3.md: "What each method reaches").
GAMES = {
    "classic": {
        "darkhex": "dark_hex(num_rows=3,num_cols=3)",
        "eas": "Dh",
        "infosets": [3720850, 2352067],
        "exploitability": 0.916402,
    },
    "abrupt": {
        "darkhex": "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
        "eas": "AbruptDh",
        "infosets": [16497034, 10828243],
        "exploitability": 0.762605,
    },
}
QUICK = {
    "darkhex": "dark_hex(num_rows=2,num_cols=3)",
    "eas": "CornerDh",
    "infosets": None,
    "exploitability": None,
}

# Bytes a decision information state costs exp-a-spiel: eleven arrays of 9
# doubles and two hash map entries (tables), five more arrays for one
# exploitability (the policy, gradients and best responses, copied out).
EAS_TABLE_BYTES = 11 * 72 + 60
EAS_EXPLOIT_BYTES = 5 * 72

EAS_CHILD = r"""
import gc, json, os, re, resource, sys, time
out = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)  # exp-a-spiel logs with printf on stdout: send that to stderr
prefix, steps, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if limit > 0:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import eas

def memory():
    status = open("/proc/self/status").read()
    return [int(re.search(k + r":\s+(\d+)", status).group(1)) / 1024 for k in ("VmHWM", "VmRSS")]

def report(step, clock, **extra):
    peak, rss = memory()
    out.write(json.dumps({"step": step, "wall_s": time.perf_counter() - clock[0],
                          "cpu_s": time.process_time() - clock[1], "peak_rss_mb": peak,
                          "rss_mb": rss, **extra}) + "\n")

def clock():
    return time.perf_counter(), time.process_time()

out.write(json.dumps({"step": "module", "file": eas.__file__,
                      "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}) + "\n")
c = clock()
traverser = getattr(eas, prefix + "Traverser")()
report("tables", c, infosets=[traverser.NUM_INFOS_PL0, traverser.NUM_INFOS_PL1])
x, y = traverser.construct_uniform_strategies()
c = clock()
r = traverser.ev_and_exploitability(x, y)
report("exploitability", c, ev0=r.ev0, expl=list(r.expl))
del r, x, y
gc.collect()
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak restarts from what the tables hold
    reset = True
except OSError:
    reset = False
c = clock()
solver = getattr(eas, prefix + "CfrSolver")(traverser, eas.CfrConf.PCFRP)
report("pcfr+ solver", c, peak_reset=reset)
for k in range(1, steps + 1):
    c = clock()
    solver.step()
    report("pcfr+ step %d" % k, c, peak_reset=reset)
"""


class Run:
    """A child run to its end: its JSON lines, wall and CPU seconds, peak
    resident memory (wait4) and exit status."""

    def __init__(self, argv, env=None, label=""):
        shown = ["EAS_CHILD" if a == EAS_CHILD else a for a in argv]
        print("%s: %s" % (label, " ".join(shown)), file=sys.stderr, flush=True)
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        self.tail = collections.deque(maxlen=15)

        def pump():
            for line in proc.stderr:
                self.tail.append(line.rstrip())
                print("    " + line.rstrip(), file=sys.stderr, flush=True)

        err = threading.Thread(target=pump, daemon=True)
        err.start()
        self.lines = []
        for line in proc.stdout:
            line = line.strip()
            if line.startswith("{"):
                self.lines.append(json.loads(line))
                print("  " + line, file=sys.stderr, flush=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.join()
        self.wall_s = time.perf_counter() - start
        self.cpu_s = usage.ru_utime + usage.ru_stime
        self.peak_mb = usage.ru_maxrss / 1024
        self.status = proc.returncode
        if self.status != 0:
            print("%s: exit status %d" % (label, self.status), file=sys.stderr, flush=True)

    def ok(self):
        return self.status == 0

    def step(self, name):
        return next((l for l in self.lines if l.get("step") == name), None)

    def error(self):
        why = "signal %d" % -self.status if self.status < 0 else "exit status %d" % self.status
        last = [l for l in self.tail if l.strip()]
        return why + (": " + last[-1] if last else "")


def mem_available_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def eas_python(path):
    if os.path.isdir(path):
        path = os.path.join(path, "bin", "python")
    if not os.path.exists(path):
        sys.exit("no exp-a-spiel Python at " + path)
    return path


def run_darkhex(args, game, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    t = ["--threads", str(threads)]
    out = {}
    out["info"] = Run([args.darkhex, "info", game, "--json", "--max-histories", "0"] + t,
                      env, "darkhex info")
    out["exploit"] = Run([args.darkhex, "exploit", game, "uniform", "--stream", "--json"] + t,
                         env, "darkhex exploit")
    out["pcfr"] = Run([args.stream_passes, game, "1", "pcfr+", "f64"], env, "darkhex stream_passes")
    return out


def run_eas(args, spec, threads, infosets):
    n = sum(infosets) if infosets else 0
    limit = int(args.eas_max_memory_gb * 1e9) if args.eas_max_memory_gb else mem_available_bytes()
    need = n * (EAS_TABLE_BYTES + EAS_EXPLOIT_BYTES)
    if need > limit and not args.force_eas and not args.quick:
        reason = ("its tables and one exploitability need about %.1f GB (%s information states, "
                  "%d bytes each), more than the %.1f GB available"
                  % (need / 1e9, "{:,}".format(n), EAS_TABLE_BYTES + EAS_EXPLOIT_BYTES, limit / 1e9))
        print("exp-a-spiel %s: skipped: %s (--force-eas runs it)" % (spec["eas"], reason),
              file=sys.stderr, flush=True)
        return None, reason
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    run = Run([args.python, "-c", EAS_CHILD, spec["eas"], str(args.eas_steps), str(limit)],
              env, "exp-a-spiel " + spec["eas"])
    return run, None


def gb(mb):
    return "%.2f GB" % (mb / 1024) if mb is not None else ""


def seconds(s):
    return "%.1f" % s if abs(s) >= 10 else "%.3g" % s


def cell(wall, cpu):
    return "%s s (%s)" % (seconds(wall), seconds(cpu))


def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else ""


def table(label, threads, eas, eas_why, dh):
    """The markdown rows of one game: (step, exp-a-spiel, darkhex)."""
    e = {}
    if eas is not None:
        tables, expl = eas.step("tables"), eas.step("exploitability")
        steps = [eas.step("pcfr+ step %d" % k) for k in (1, 2)]
        solver = eas.step("pcfr+ solver")
        if tables:
            e["tables"] = (tables["wall_s"], tables["cpu_s"], tables["peak_rss_mb"])
        if tables and expl:
            e["tables+expl"] = (tables["wall_s"] + expl["wall_s"], tables["cpu_s"] + expl["cpu_s"],
                                expl["peak_rss_mb"])
            e["expl"] = (expl["wall_s"], expl["cpu_s"], expl["peak_rss_mb"])
        for k, s in enumerate(steps):
            if s and tables:
                # A fresh process holding tables, solver and step; the solver's
                # construction is counted with the first step.
                extra = solver if k == 0 and solver else {"wall_s": 0, "cpu_s": 0}
                e["pcfr%d" % k] = (s["wall_s"] + extra["wall_s"], s["cpu_s"] + extra["cpu_s"],
                                   max(tables["peak_rss_mb"], s["peak_rss_mb"]))
        if "pcfr0" in e and "pcfr1" in e:
            e["pcfr"] = (e["pcfr0"][0] + e["pcfr1"][0], e["pcfr0"][1] + e["pcfr1"][1],
                         max(e["pcfr0"][2], e["pcfr1"][2]))
    d = {}
    info, exploit, pcfr = dh["info"], dh["exploit"], dh["pcfr"]
    if info.ok():
        d["tables"] = (info.wall_s, info.cpu_s, info.peak_mb)
    if exploit.ok():
        d["tables+expl"] = (exploit.wall_s, exploit.cpu_s, exploit.peak_mb)
        if info.ok():
            d["expl"] = (exploit.wall_s - info.wall_s, exploit.cpu_s - info.cpu_s, exploit.peak_mb)
    passes = [l for l in pcfr.lines if l.get("step", "").startswith("iteration 1,")]
    if len(passes) == 2:
        for k, p in enumerate(passes):
            d["pcfr%d" % k] = (p["wall_s"], p["cpu_s"], pcfr.peak_mb)
        d["pcfr"] = (passes[0]["wall_s"] + passes[1]["wall_s"], passes[0]["cpu_s"] + passes[1]["cpu_s"],
                     pcfr.peak_mb)
    rows = [
        ("tables", "tables (exp-a-spiel: the traverser; darkhex: `info`)"),
        ("expl", "one exact exploitability of the uniform policy, after the tables "
                 "(darkhex: `exploit` minus `info`)"),
        ("tables+expl", "tables and one exact exploitability (darkhex: `exploit`)"),
        ("pcfr0", "PCFR+ player 0's update (exp-a-spiel: `step()` 1, with the solver's construction)"),
        ("pcfr1", "PCFR+ player 1's update (exp-a-spiel: `step()` 2)"),
        ("pcfr", "one PCFR+ iteration, both players"),
    ]
    print()
    print("%s, %d thread(s): wall seconds (CPU seconds), peak resident memory" % (label, threads))
    if eas_why:
        print("exp-a-spiel not run: " + eas_why)
    elif eas is not None and not eas.ok():
        print("exp-a-spiel stopped: " + eas.error())
    for name, run in dh.items():
        if not run.ok():
            print("darkhex %s stopped: %s" % (name, run.error()))
    print("| step | exp-a-spiel | peak | darkhex | peak | exp-a-spiel / darkhex (wall) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for key, text in rows:
        a, b = e.get(key), d.get(key)
        if a is None and b is None:
            continue
        print("| %s | %s | %s | %s | %s | %s |" % (
            text, cell(*a[:2]) if a else "n/a", gb(a[2]) if a else "",
            cell(*b[:2]) if b else "n/a", gb(b[2]) if b else "",
            ratio(a[0], b[0]) if a and b else ""))
    if len(passes) == 2 and passes[0].get("histories"):
        p = passes[0]
        print("darkhex's first PCFR+ pass walks %.3g histories, %.3g a CPU second"
              % (p["histories"], p["histories_per_cpu_s"]))
    if eas is not None and eas.ok():
        need = (EAS_TABLE_BYTES + EAS_EXPLOIT_BYTES) * sum(eas.step("tables")["infosets"])
        print("exp-a-spiel's memory as this script estimates it (72 bytes an array per information "
              "state): %.2f GB for tables and one exploitability" % (need / 1e9))


def check(label, spec, eas, dh, quick):
    """Compares the information-state counts and the uniform policy's values;
    returns the names of the quantities that disagree."""
    info = dh["info"].lines[-1] if dh["info"].ok() and dh["info"].lines else None
    ex = dh["exploit"].lines[-1] if dh["exploit"].ok() and dh["exploit"].lines else None
    t = eas.step("tables") if eas is not None else None
    x = eas.step("exploitability") if eas is not None else None
    rows = []
    for p in (0, 1):
        rows.append(("decision information states, player %d" % p,
                     t["infosets"][p] if t else None,
                     info["infosets"][p] if info else None,
                     spec["infosets"][p] if spec["infosets"] else None, 0))
    if x:
        ev0, (e0, e1) = x["ev0"], x["expl"]
        mine = {"value_p0": ev0, "br0": e1 + ev0, "br1": e0 - ev0, "exploitability": (e0 + e1) / 2}
    else:
        mine = {}
    theirs = {}
    if ex:
        theirs = {"value_p0": ex["value_p0"], "br0": ex["best_response_values"][0],
                  "br1": ex["best_response_values"][1], "exploitability": ex["exploitability"]}
    for key, text in [("value_p0", "uniform against uniform, value for player 0 (exp-a-spiel: ev0)"),
                      ("br0", "best response of player 0 (expl[1] + ev0)"),
                      ("br1", "best response of player 1 (expl[0] - ev0)"),
                      ("exploitability", "exploitability, NashConv / 2 ((expl[0] + expl[1]) / 2)")]:
        ref = spec["exploitability"] if key == "exploitability" else None
        rows.append((text, mine.get(key), theirs.get(key), ref, 1e-6))
    print()
    print("%s: the same game? (tolerance 1e-6 on values; the published figure in the last column)" % label)
    if x:
        print("exp-a-spiel's own figures: ev0 = %.9f, expl = (%.9f, %.9f)" % (x["ev0"], *x["expl"]))
    print("| quantity | exp-a-spiel | darkhex | difference | published |")
    print("| --- | --- | --- | --- | --- |")
    bad = []
    for text, a, b, ref, tol in rows:
        diff = "" if a is None or b is None else ("%d" % (a - b) if tol == 0 else "%.2e" % (a - b))
        fmt = (lambda v: "" if v is None else "{:,}".format(v)) if tol == 0 else \
              (lambda v: "" if v is None else "%.9f" % v)
        print("| %s | %s | %s | %s | %s |" % (text, fmt(a), fmt(b), diff,
                                              "" if ref is None else ("{:,}".format(ref) if tol == 0 else ref)))
        if quick or a is None or b is None:
            continue
        if abs(a - b) > tol:
            bad.append(text)
    if quick:
        print("(--quick: exp-a-spiel's CornerDh and darkhex's 2x3 are different games: not compared)")
    return bad


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eas", default=None,
                    help="the virtual environment (or its python) where exp-a-spiel's `eas` is installed")
    ap.add_argument("--threads", type=int, default=2,
                    help="OMP_NUM_THREADS, RAYON_NUM_THREADS and darkhex's --threads")
    ap.add_argument("--games", default="classic,abrupt", help="classic, abrupt or both")
    ap.add_argument("--eas-steps", type=int, default=2,
                    help="exp-a-spiel PCFR+ step() calls (each updates one player)")
    ap.add_argument("--eas-max-memory-gb", type=float, default=None,
                    help="cap on the exp-a-spiel process's address space (default: MemAvailable)")
    ap.add_argument("--force-eas", action="store_true",
                    help="run exp-a-spiel even where its tables would not fit")
    ap.add_argument("--quick", action="store_true",
                    help="exp-a-spiel's CornerDh and darkhex's 2x3: a check of the plumbing")
    ap.add_argument("--darkhex", default="target/release/darkhex")
    ap.add_argument("--stream-passes", default="target/release/stream_passes")
    ap.add_argument("--no-build", action="store_true", help="do not run cargo build first")
    args = ap.parse_args()
    if args.eas:
        args.python = eas_python(args.eas)
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "darkhex", "--bin", "darkhex"], check=True)
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "darkhex-benches",
                        "--bin", "stream_passes"], check=True)
    if args.quick:
        games = [("quick: exp-a-spiel CornerDh, darkhex 2x3 classic", QUICK)]
    else:
        names = [g.strip() for g in args.games.split(",") if g.strip()]
        for g in names:
            if g not in GAMES:
                sys.exit("unknown game %r: classic or abrupt" % g)
        games = [("3x3 %s Dark Hex" % g, GAMES[g]) for g in names]
    results = []
    for label, spec in games:
        dh = run_darkhex(args, spec["darkhex"], args.threads)
        eas, why = None, "no --eas given"
        if args.eas:
            info = dh["info"].lines[-1] if dh["info"].ok() and dh["info"].lines else {}
            eas, why = run_eas(args, spec, args.threads, info.get("infosets") or spec["infosets"])
        results.append((label, spec, eas, why, dh))
    bad = []
    for label, spec, eas, why, dh in results:
        table(label, args.threads, eas, why, dh)
        bad += ["%s: %s" % (label, b) for b in check(label, spec, eas, dh, args.quick)]
    if bad:
        print("the engines disagree on: " + "; ".join(bad), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
