#!/usr/bin/env bash
# Prints what failed in a test log, so that the cause is visible at the end of a long CI log:
# each failed jest test's name (its "●" line) with its first assertion lines (the message up to
# the code frame, at most 8 lines), then jest's summary lines. A log without a jest failure (the
# type check, the lint, the scanner or an install failed) gets its last 40 lines instead.
#
#   scripts/test-failures.sh LOG
set -u
log="${1:?usage: scripts/test-failures.sh LOG}"

failures=$(
	awk '
		# a failed test: "  ● Describe › test name" (not the "● Console" blocks of console output)
		/^ *● / && !/● Console/ { if (name != "") print ""; name = $0; sub(/^ */, "", name);
			print "  " name; taken = 0; inside = 1; next }
		inside {
			if ($0 ~ /^ *[0-9]+ \|/ || $0 ~ /^ *> *[0-9]+ \|/ || $0 ~ /^ *at /) { inside = 0; next }
			if ($0 ~ /^[[:space:]]*$/) next
			if (taken < 8) { line = $0; sub(/^ */, "", line); print "      " line; taken++ }
			else inside = 0
		}
	' "$log"
)

echo
echo "==================== what failed ===================="
if [ -n "$failures" ]; then
	echo "$failures"
	echo
	grep -E '^(FAIL |Test Suites:|Tests:)' "$log" | sort -u
else
	echo "(no failed jest test in the log: its last 40 lines)"
	tail -n 40 "$log"
fi
echo "====================================================="
