#!/usr/bin/env bash
# Prints, for each test that failed in ctest's last run in BUILD_DIR, its
# first failed assertions (a few lines each), so that the end of a long log
# already says what went wrong; the whole output stays above, in ctest's.
#   scripts/failed-tests.sh [BUILD_DIR]
set -euo pipefail
logs=${1:-build}/Testing/Temporary
[ -s "$logs/LastTestsFailed.log" ] || exit 0
awk -v failed="$(cut -d: -f2- "$logs/LastTestsFailed.log")" '
  BEGIN { n = split(failed, names, "\n"); for (i = 1; i <= n; i++) wanted[names[i]] = 1 }
  /^[0-9]+\/[0-9]+ Test: / { name = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); shown = 0; left = 0
                             if (name in wanted) print "FAILED " name; next }
  /^<end of output>/ { name = ""; next }
  !(name in wanted) { next }
  left > 0 { print "  " $0; left--; next }
  shown < 2 && /(: Failure$|^FAIL|Failed|[Ee]rror|timed out|Timeout)/ { print "  " $0; left = 4; shown++ }
' "$logs/LastTest.log"
