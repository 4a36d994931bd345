#!/usr/bin/env bash
# Runs `npm test` (type check, lint, unit + sandbox + engine tests) several times in a row while
# busy processes keep every core loaded, and prints each run's time and test counts. Exits non-zero
# when any run failed. Not part of CI: it shows that the suite holds on a busy machine.
#
#   scripts/stress-tests.sh                       # 5 runs, one busy process per core
#   STRESS_RUNS=2 STRESS_HOGS=4 scripts/stress-tests.sh
#
# Each run's full output is kept in a temporary folder (printed at the start).
set -u

cd "$(dirname "$0")/.."

runs="${STRESS_RUNS:-5}"
hogs="${STRESS_HOGS:-$(nproc 2>/dev/null || echo 2)}"
logs="$(mktemp -d "${TMPDIR:-/tmp}/stress-tests.XXXXXX")"
pids=()

stop_hogs() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
	pids=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

for _ in $(seq 1 "$hogs"); do
	sh -c 'while :; do :; done' &
	pids+=("$!")
done

echo "npm test x${runs} with ${hogs} busy processes on $(nproc 2>/dev/null || echo '?') cores; logs in ${logs}"
failed_runs=0
summary=()
for i in $(seq 1 "$runs"); do
	log="${logs}/run-${i}.log"
	started=$(date +%s)
	npm test >"$log" 2>&1
	rc=$?
	seconds=$(($(date +%s) - started))
	# jest's summary line, e.g. "Tests:       1 failed, 1 skipped, 600 passed, 602 total"
	tests_line=$(grep -E '^Tests:' "$log" | tail -n 1)
	count() { echo "$tests_line" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
	if [ -n "$tests_line" ]; then
		counts="passed $(count passed), failed $(count failed), skipped $(count skipped), total $(count total)"
	else
		counts="no jest summary (type check or lint failed?)"
	fi
	if [ "$rc" -eq 0 ]; then result=ok; else
		result="FAILED (exit ${rc})"
		failed_runs=$((failed_runs + 1))
		scripts/test-failures.sh "$log"
	fi
	load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
	line="run ${i}/${runs}: ${seconds} s, load average ${load}, ${counts}: ${result}"
	echo "$line"
	summary+=("$line")
done

stop_hogs
echo
echo "summary (${hogs} busy processes):"
printf '  %s\n' "${summary[@]}"
if [ "$failed_runs" -gt 0 ]; then
	echo "${failed_runs} of ${runs} runs failed; logs in ${logs}"
	exit 1
fi
echo "all ${runs} runs passed"
