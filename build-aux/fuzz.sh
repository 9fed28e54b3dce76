#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the fuzz targets in fuzz/ (libFuzzer, one per parser of kernel text in pacer-core)
# and runs each over its checked-in inputs: fuzz/seeds/<target>, real values written by hand,
# and fuzz/corpus/<target>, what fuzzing found beyond them. Fails if any target finds
# a crash (a panic, an overflow, a timeout, running out of memory); the input that crashed is
# kept in fuzz/artifacts/<target>/. Prints, per target, how many inputs it ran.
#
#   build-aux/fuzz.sh                   every target for PACER_FUZZ_SECONDS (default 7) each
#   build-aux/fuzz.sh --seconds 60      every target for 60 s each
#   build-aux/fuzz.sh --runs 1000000    every target for 1,000,000 executions each
#   build-aux/fuzz.sh --runs 1000000 --update-corpus khz epp
#                                       those targets; then merges (-merge=1, into a fresh
#                                       directory) the corpus and what they found: the
#                                       inputs that add coverage beyond the seeds become
#                                       fuzz/corpus/<target>
#
# New inputs go to a temporary directory: the repository's corpus changes only with
# --update-corpus. PACER_FUZZ_JOBS (default: the number of CPUs) targets run at a time.
# Stable Rust is enough: the coverage instrumentation is passed to rustc here, as cargo-fuzz
# would with `--sanitizer none`; cargo-fuzz is not needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh
pacer_ensure_rust

seconds="${PACER_FUZZ_SECONDS:-7}"
runs=""
update=false
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --update-corpus) update=true; shift ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) pacer_say "fuzz.sh: unknown option $1"; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for source in fuzz/fuzz_targets/*.rs; do
    targets+=("$(basename "$source" .rs)")
  done
fi
jobs="${PACER_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"

if ! command -v c++ >/dev/null 2>&1; then
  pacer_say "fuzz.sh: a C++ compiler is needed to build libFuzzer (Debian: build-essential)"
  exit 1
fi

# What `cargo fuzz build --sanitizer none` passes. With an explicit --target, RUSTFLAGS reach
# only what runs in the fuzz targets, not build scripts and proc macros. The build has its own
# target directory: these flags would otherwise rebuild the workspace's. It is kept outside
# the checkout, one for each fuzz/Cargo.lock and toolchain (the others go), so that a fresh
# clone compiles only the fuzz targets and Pacer's crates, not libFuzzer's C++ and the crates
# again (three minutes on two processors).
host=$(rustc -vV | sed -n 's/^host: //p')
pacer_shared_cargo_target fuzz-target fuzz
unset CARGO_ENCODED_RUSTFLAGS
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth \
--cfg fuzzing"
pacer_say "fuzz: building ${#targets[@]} targets"
build_args=()
for target in "${targets[@]}"; do
  build_args+=(--bin "$target")
done
cargo build --locked --release --manifest-path fuzz/Cargo.toml --target "$host" "${build_args[@]}"
bin="$CARGO_TARGET_DIR/$host/release"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$runs" ]; then
  limit=(-runs="$runs")
  pacer_say "fuzz: $runs executions per target, $jobs at a time"
else
  limit=(-max_total_time="$seconds")
  pacer_say "fuzz: $seconds s per target, $jobs at a time"
fi
# Sysfs attributes are at most a page (show() prints into PAGE_SIZE).
options=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

run_one() {
  local target="$1" rc=0
  mkdir -p "$work/$target" "fuzz/artifacts/$target" "fuzz/corpus/$target" "fuzz/seeds/$target"
  SECONDS=0
  "$bin/$target" "${options[@]}" "${limit[@]}" -artifact_prefix="fuzz/artifacts/$target/" \
    "$work/$target" "fuzz/seeds/$target" "fuzz/corpus/$target" >"$work/$target.log" 2>&1 ||
    rc=$?
  echo "$rc $SECONDS" >"$work/$target.rc"
}

running=0
for target in "${targets[@]}"; do
  run_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

failed=()
total=0
for target in "${targets[@]}"; do
  read -r rc took <"$work/$target.rc"
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log" | tail -n 1)
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$work/$target.log" >&2
    pacer_say "fuzz $target: FAILED (exit $rc); the input is in fuzz/artifacts/$target/;" \
      "run it again with $bin/$target FILE"
    failed+=("$target")
    continue
  fi
  total=$((total + ${executions:-0}))
  pacer_say "fuzz $target: ${executions:-?} executions in $took s, no crash"
done
if [ ${#failed[@]} -gt 0 ]; then
  pacer_say "fuzz: crashes in ${failed[*]}"
  exit 1
fi
pacer_say "fuzz: ${#targets[@]} targets, $total executions, no crash"

# The merge starts from the seeds, so that only inputs adding coverage beyond them are kept;
# the seeds are then taken out again (libFuzzer names inputs by their SHA-1, as the seeds are).
if $update; then
  for target in "${targets[@]}"; do
    fresh="$work/$target.merged"
    cp -r "fuzz/seeds/$target" "$fresh"
    "$bin/$target" -merge=1 -max_len=4096 "$fresh" "fuzz/corpus/$target" "$work/$target" \
      >"$work/$target.merge.log" 2>&1
    for seed in "fuzz/seeds/$target"/*; do
      rm -f "$fresh/$(basename "$seed")"
    done
    rm -rf "fuzz/corpus/$target"
    cp -r "$fresh" "fuzz/corpus/$target"
    pacer_say "fuzz $target: corpus $(find "fuzz/corpus/$target" -type f | wc -l) files," \
      "$(find "fuzz/corpus/$target" -type f -exec cat {} + | wc -c) bytes"
  done
fi
