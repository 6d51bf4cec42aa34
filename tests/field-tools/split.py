#!/usr/bin/env python3
"""Set aside a random third of the tools corpus as the held-out set, once.

Reads every tests/field-tools/*.cases.yaml except holdout.cases.yaml, in
sorted file order and file order within a file, picks n // 3 of the cases
with random.Random(SEED).sample, and moves them (each with its `# source:`
line) into holdout.cases.yaml. Refuses to run when the holdout exists.

Usage: python3 tests/field-tools/split.py SEED
"""
import glob
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    seed = int(sys.argv[1])
    hold = os.path.join(HERE, "holdout.cases.yaml")
    if os.path.exists(hold):
        sys.exit("holdout.cases.yaml exists: the split is made once")
    files = sorted(f for f in glob.glob(os.path.join(HERE, "*.cases.yaml")))
    parsed, allcases = {}, []
    for f in files:
        head, cases, src = [], [], None
        for line in open(f, encoding="utf-8"):
            if line.startswith("# source:"):
                src = line
            elif line.startswith("- "):
                cases.append((src, line))
                allcases.append((f, len(cases) - 1))
                src = None
            elif not cases and src is None:
                head.append(line)
        parsed[f] = (head, cases)
    picked = set(random.Random(seed).sample(range(len(allcases)), len(allcases) // 3))
    moved = []
    keep = {f: [] for f in files}
    for i, (f, j) in enumerate(allcases):
        (moved if i in picked else keep[f]).append(parsed[f][1][j])
    for f in files:
        with open(f, "w", encoding="utf-8") as out:
            out.writelines(parsed[f][0])
            for src, line in keep[f]:
                out.write(src + line)
    with open(hold, "w", encoding="utf-8") as out:
        out.write("# Field corpus (tools): held out: a random third of the tools corpus, set aside before any\n")
        out.write(f"# measurement with `python3 tests/field-tools/split.py {seed}`. Its misses are not listed\n")
        out.write("# (run it without -v) until the end of the work.\n")
        out.write("# Each case is derived from the public source on the line above it.\n")
        out.write("config: ../../examples/toolvet.toml\n")
        first = parsed[files[0]][0]
        out.writelines(l for l in first if l.startswith("context:"))
        out.write("cases:\n")
        for src, line in moved:
            out.write(src + line)
    print(f"{len(allcases)} cases, {len(moved)} moved to holdout.cases.yaml (seed {seed})")


if __name__ == "__main__":
    main()
