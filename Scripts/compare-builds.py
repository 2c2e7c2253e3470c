#!/usr/bin/env python3
"""Compares builds of `jsonapi` on one benchmark pass over one document, in the same run.

Each round runs `BIN bench-pass --pass PASS --workers N --runs RUNS FILE` for every build in
turn (interleaved, so that a machine whose speed drifts within the hour slows every build
alike), and, with --one-core, the same pass on one thread pinned to one core (`taskset -c 0
... --workers 1 --concurrency sequential`) for the scaling from one core. Prints, per build,
the medians over the rounds of each round's median run: the time, the processor time (all
threads), how many cores were busy on average (processor time / time: under the workers'
count when one waits on another), and the ratios of time and processor time to the first
build; with --one-core also one thread's time and the scaling (one thread / N workers).

A build faster by the clock with the same processor time waits less; one with less
processor time but no faster by the clock waits more (see "busy"). Quote medians of at least
5 rounds, and prefer instruction counts (Scripts/callgrind.sh) for small differences.

Usage:
  Scripts/compare-builds.py [--pass graph] [--workers 2] [--rounds 7] [--runs 5] [--one-core]
                            FILE BIN [BIN ...]
  e.g. .build/release/jsonapi generate --resources 9000 --seed 1 | sed 's/:1e400/:1e300/g' > /tmp/g16.json
       cp .build/release/jsonapi /tmp/jsonapi-before   # then rebuild with the change
       Scripts/compare-builds.py --one-core /tmp/g16.json /tmp/jsonapi-before .build/release/jsonapi
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys


def run_pass(binary, pass_name, path, runs, workers, one_core):
    """The median run's seconds and processor seconds of one bench-pass process."""
    command = [binary, "bench-pass", "--pass", pass_name, "--runs", str(runs), path]
    if one_core:
        command = ["taskset", "-c", "0"] + command + ["--workers", "1", "--concurrency", "sequential"]
    else:
        command += ["--workers", str(workers)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compare-builds: {' '.join(command)} failed: {done.stdout.strip()} {done.stderr.strip()}")
    reply = json.loads(done.stdout)
    return statistics.median(reply["seconds"]), statistics.median(reply["cpuSeconds"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pass", dest="pass_name", default="graph")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one-core", action="store_true", help="also one thread on one core, for the scaling")
    parser.add_argument("file")
    parser.add_argument("builds", nargs="+")
    args = parser.parse_args()
    if args.one_core and shutil.which("taskset") is None:
        sys.exit("compare-builds: --one-core needs taskset (util-linux)")

    many = {b: [] for b in args.builds}
    one = {b: [] for b in args.builds}
    for r in range(args.rounds):
        for b in args.builds:
            many[b].append(run_pass(b, args.pass_name, args.file, args.runs, args.workers, False))
            if args.one_core:
                one[b].append(run_pass(b, args.pass_name, args.file, args.runs, 1, True))
        print(f"round {r + 1} of {args.rounds}", file=sys.stderr)

    def medians(rows):
        return statistics.median(t for t, _ in rows), statistics.median(c for _, c in rows)

    first_time, first_cpu = medians(many[args.builds[0]])
    print(f"{args.pass_name}, {args.workers} workers, {args.file}: medians of {args.rounds} interleaved rounds of {args.runs} runs")
    for b in args.builds:
        t, c = medians(many[b])
        line = f"{b}: {t * 1000:.2f} ms, processor {c * 1000:.1f} ms, busy {c / t:.2f} cores, time {t / first_time:.3f}, processor {c / first_cpu:.3f}"
        if args.one_core:
            t1, _ = medians(one[b])
            line += f"; one core {t1 * 1000:.2f} ms, scaling {t1 / t:.3f}"
        print(line)


if __name__ == "__main__":
    main()
