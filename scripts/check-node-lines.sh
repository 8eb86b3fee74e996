#!/usr/bin/env bash
# Runs a representative part of the test suite on other Node.js release lines, without touching this
# checkout's node_modules (native modules such as better-sqlite3 are built per Node ABI).
#
#   scripts/check-node-lines.sh            # lines 22, 24 and 26
#   scripts/check-node-lines.sh 24         # any lines
#
# For each line N it
#   1. installs the newest Node N from the npm registry (package `node`, the Node binary as an npm package,
#      whose own install script is allowed in that folder's package.json) into $NODE_CHECK_DIR/nodeN,
#      outside the repository (default: a `node-check` folder beside it);
#   2. adds a throwaway git worktree of HEAD at $NODE_CHECK_DIR/check-N and runs `npm install` there under
#      that Node (so the allowScripts policy of package.json decides which install scripts run), then checks
#      that `npm install-scripts ls` has nothing left to review and that better-sqlite3 loads. node-gyp is
#      pointed (npm_config_nodedir) at the headers inside the installed Node package, so a binding compiled
#      from source matches that Node's ABI without downloading headers;
#   3. runs, under `nice -n 10`, the unit tests beside the code (every *.test.ts whose path contains `src/`,
#      the packages' included) and four integration files: test/search.test.ts, test/ingest-search.test.ts,
#      test/projects.test.ts and test/backup-restore.test.ts, on both control planes when PostgreSQL is installed (TEST_FILTER,
#      DOCSEARCH_TEST_SKIP_SETUP=1; override the list with NODE_CHECK_TESTS);
#   4. removes the worktree (KEEP=1 keeps it) and prints one line per Node line.
# The machine check is skipped, so the OCR tests fail where tesseract is missing (run `npm test` once, or
# scripts/preflight.ts, to install it); compare with the machine's own Node on the same TEST_FILTER.
# Only committed files are checked (the worktree is HEAD). Logs: $NODE_CHECK_DIR/check-N.log.
# NODE_CHECK_NPM_BIN=DIR puts DIR first on PATH for the worktree's install and tests, e.g. the .bin folder
# of `npm install --prefix /somewhere npm@12` to install with another npm.
# Exit status: 0 when every line passed.
set -uo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${NODE_CHECK_DIR:-$(dirname "$repo")/node-check}"
tests="${NODE_CHECK_TESTS:-src/,test/search.test.ts,test/ingest-search.test.ts,test/projects.test.ts,test/backup-restore.test.ts}"
lines=("$@")
[ ${#lines[@]} -eq 0 ] && lines=(22 24 26)
mkdir -p "$dir"
# Tests read ../shared beside the checkout; the worktrees sit in $dir, so $dir/shared points to it.
[ -e "$dir/shared" ] || [ ! -d "$(dirname "$repo")/shared" ] || ln -s "$(dirname "$repo")/shared" "$dir/shared"

declare -a summary=()
status=0
for n in "${lines[@]}"; do
  log="$dir/check-$n.log"
  wt="$dir/check-$n"
  : >"$log"
  echo "== Node $n (log: $log)"
  mkdir -p "$dir/node$n"
  [ -f "$dir/node$n/package.json" ] || echo '{ "private": true, "allowScripts": { "node": true } }' >"$dir/node$n/package.json"
  # Installed once: the package's install script puts the binary and headers under its own node_modules,
  # which a second `npm install` there prunes as extraneous.
  if ! ls -d "$dir/node$n"/node_modules/node/node_modules/node-*/include/node >/dev/null 2>&1 \
    && ! npm install --prefix "$dir/node$n" --no-audit --no-fund "node@$n" >>"$log" 2>&1; then
    summary+=("Node $n: could not install node@$n from the registry"); status=1; continue
  fi
  bin="$dir/node$n/node_modules/node/bin"
  headers="$(dirname "$(dirname "$(ls -d "$dir/node$n"/node_modules/node/node_modules/node-*/include/node | head -1)")")"
  version="$("$bin/node" --version)"
  [ -e "$wt" ] && git -C "$repo" worktree remove --force "$wt"
  git -C "$repo" worktree add --detach "$wt" HEAD >>"$log" 2>&1
  (
    export PATH="${NODE_CHECK_NPM_BIN:+$NODE_CHECK_NPM_BIN:}$bin:$PATH" npm_config_nodedir="$headers"
    cd "$wt" || exit 1
    echo "node $(node --version), npm $(npm --version)"
    nice -n 10 npm install --no-audit --no-fund || exit 10
    pending="$(npm install-scripts ls 2>&1 | grep -c 'not yet covered')"
    [ "$pending" -eq 0 ] || { npm install-scripts ls; exit 11; }
    node --import tsx -e "import('./src/storage/sqlite-binding.ts').then((m) => console.log('sqlite binding', m.sqliteBindingPackage(), m.openSqlite(':memory:').prepare('select sqlite_version() AS v').get().v))" || exit 12
    TEST_FILTER="$tests" DOCSEARCH_TEST_SKIP_SETUP=1 nice -n 10 npm test
  ) >>"$log" 2>&1
  rc=$?
  # Node's runner prints its summary as TAP (`# pass N`) or with the spec reporter (`ℹ pass N`), once per
  # phase of scripts/run-tests.mjs (unit, integration): the figures are summed.
  pass="$(grep -E '^(#|ℹ) pass ' "$log" | awk '{s += $3} END {print s}')"
  fail="$(grep -E '^(#|ℹ) fail ' "$log" | awk '{s += $3} END {print s}')"
  aborts="$(grep -c 'Assertion failed' "$log")"
  case $rc in
    0) summary+=("Node $version: install ok, tests pass ${pass:-?} fail ${fail:-?}") ;;
    10) summary+=("Node $version: npm install failed"); status=1 ;;
    11) summary+=("Node $version: install scripts not covered by allowScripts"); status=1 ;;
    12) summary+=("Node $version: better-sqlite3 does not load"); status=1 ;;
    *) summary+=("Node $version: tests pass ${pass:-?} fail ${fail:-?}, native assertion aborts $aborts (exit $rc)"); status=1 ;;
  esac
  [ "${KEEP:-0}" = 1 ] || git -C "$repo" worktree remove --force "$wt"
done
printf '%s\n' "${summary[@]}"
exit $status
