#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run-fuzzer.sh FUZZER SEED_CORPUS WORKDIR [SECONDS]: one bounded libFuzzer
# run. First every seed (the regression inputs among them) runs once; then
# the fuzzer explores for FUZZ_SECONDS if set, else SECONDS (default 10),
# writing new inputs to WORKDIR/corpus and any crash to WORKDIR/, never
# into the repository.
# Prints one line: harness, seeds, executions, coverage, final corpus.
set -uo pipefail
fuzzer=$1 seeds=$2 work=$3
seconds=${FUZZ_SECONDS:-${4:-10}}
name=$(basename "$fuzzer")
[ -x "$fuzzer" ] || { echo "SKIP: $fuzzer not built"; exit 77; }
[ -d "$seeds" ] && [ -n "$(ls -A "$seeds")" ] || { echo "FAIL: no seed corpus in $seeds"; exit 1; }
mkdir -p "$work/corpus"
log=$work/fuzz.log
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1

# The seeds alone, as a regression test: each must pass.
"$fuzzer" -runs=0 -rss_limit_mb=1024 "$seeds" > "$work/seeds.log" 2>&1 || {
  echo "FAIL: a seed input of $name crashes it"; tail -40 "$work/seeds.log"; exit 1; }

"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$seeds" > "$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: $name (exit $rc); the input is in $work/:"; ls "$work" | grep -E '^(crash|leak|timeout|oom)-'
  tail -60 "$log"; exit 1
fi
done_line=$(grep -E '^#[0-9]+\s+DONE' "$log" | tail -1)
execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
cov=$(sed -nE 's/.* cov: ([0-9]+) .*/\1/p' <<<"$done_line")
ft=$(sed -nE 's/.* ft: ([0-9]+) .*/\1/p' <<<"$done_line")
corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9a-zA-Z]+) .*/\1/p' <<<"$done_line")
echo "$name: $(ls "$seeds" | wc -l) seeds, ${execs:-?} execs in $seconds s, cov ${cov:-?} edges, ft ${ft:-?}, corpus ${corp:-?}, no crash"
