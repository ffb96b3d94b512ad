#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""vm-compare-order.py OUT LABEL COMPARE_LABEL: what the order of the two
builds did, in a vm-driverless.sh or vm-reaction.sh run with
BENCH_COMPARE_BUILD (OUT: its raw guest output, BENCH lines in the order
taken). In each round (iteration) the two builds' samples of one kind come
one after the other, the first alternating; a sample's position is its
place among that round's samples of its kind. Prints, tab-separated:

  order   KIND@BUILD  first N MEDIAN  second N MEDIAN
  paired  KIND@LABEL  KIND@COMPARE_LABEL  MEDIAN_OF_ROUND_RATIOS N

The paired ratio is the median over the rounds of LABEL's sample over
COMPARE_LABEL's in the same round: each round puts the first place on one
side of the fraction, so with an even number of rounds the order weighs on
both alike (with an odd one, on the build that went first once more)."""

import collections
import statistics
import sys


def main():
    out, builds = sys.argv[1], sys.argv[2:4]
    rounds = collections.defaultdict(list)  # (kind, round) -> [(build, ms)], in order
    with open(out, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\r\n").split("\t")
            if len(parts) != 4 or parts[0] != "BENCH" or "@" not in parts[1]:
                continue
            kind, build = parts[1].rsplit("@", 1)
            rounds[(kind, parts[2])].append((build, float(parts[3])))
    kinds = sorted({k for k, _ in rounds})
    for kind in kinds:
        for b in builds:
            pos = ([], [])
            for (k, _), samples in rounds.items():
                for i, (sb, ms) in enumerate(samples[:2]):
                    if k == kind and sb == b:
                        pos[i].append(ms)
            cells = [f"{name} {len(v)} {statistics.median(v):.1f}" if v else f"{name} 0 -"
                     for name, v in zip(("first", "second"), pos)]
            print(f"order\t{kind}@{b}\t" + "\t".join(cells))
    for kind in kinds:
        ratios = []
        for (k, _), samples in rounds.items():
            d = dict(samples)
            if k == kind and d.get(builds[1], 0) > 0 and builds[0] in d:
                ratios.append(d[builds[0]] / d[builds[1]])
        if ratios:
            print(f"paired\t{kind}@{builds[0]}\t{kind}@{builds[1]}\t{statistics.median(ratios):.2f}\t{len(ratios)}")


if __name__ == "__main__":
    main()
