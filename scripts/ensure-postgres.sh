#!/usr/bin/env bash
# Make sure a local PostgreSQL server with pgvector is installed, running and reachable as
#   postgresql://postgres@127.0.0.1:5432/postgres   (no password)
# and print that admin URL as the LAST line of stdout (callers capture it with `tail -n1`).
#
# Idempotent: when everything is already in place it prints only the URL (well under a second).
# Progress and errors go to stderr; the output of apt/make goes to a log that is shown on failure.
# Runs as root (CI and developer machines are root; there is no sudo). Debian/Ubuntu only.
#
# Decisions:
# * Authentication: we make 127.0.0.1/::1 connections of the `postgres` role use `trust`, by putting
#   two lines at the top of pg_hba.conf (first match wins) and reloading -- only when a
#   password-less connection is actually refused (a fresh Debian install uses peer/scram; the CI
#   machines already use trust, so there nothing is touched). This keeps one fixed, secret-free URL
#   for scripts and tests. Loopback-only: never use this setup on a shared or production host.
# * pgvector: Debian bookworm has no pgvector package for PostgreSQL 15, so we build Debian's own
#   source package from trixie (docs/RECIPES: 0.8.x) against the running server's major version.
#   The trixie `deb-src` line lives in a PRIVATE, throw-away apt state (own sources list, lists
#   and cache directories under a temp dir, passed with -o Dir::...): the system's apt sources and
#   indexes are never touched, so no trixie *binary* package can ever be installed by this or any
#   later apt command, and later `apt-get update`s do not fetch trixie indexes.
# * The build passes OPTFLAGS="" (upstream pgvector compiles with -march=native, which can crash
#   with SIGILL if the machine image later runs on an older CPU; Debian's source already carries a
#   "no-native" patch, this just makes sure).
#
# Environment knobs (all optional):
#   HELIX_PG_PORT        port to use/expect (default 5432)
#   HELIX_PG_WAIT        seconds to wait for the server to accept connections (default 30)
set -Eeuo pipefail

PORT="${HELIX_PG_PORT:-5432}"
WAIT_SECS="${HELIX_PG_WAIT:-30}"
HOST=127.0.0.1
URL="postgresql://postgres@${HOST}:${PORT}/postgres"
PGVECTOR_SRC_LINE='deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main'

export DEBIAN_FRONTEND=noninteractive
# Test password-less access for real: no password from the environment or a ~/.pgpass.
unset PGPASSWORD PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGSERVICE PGOPTIONS || true
export PGCONNECT_TIMEOUT=5

log() { echo "ensure-postgres: $*" >&2; }
die() { echo "ensure-postgres: ERROR: $*" >&2; exit 1; }
# Never fail silently under set -e: name the command and line that failed (once).
trap 'rc=$?; [ -n "${ERR_SHOWN:-}" ] || echo "ensure-postgres: ERROR: unexpected failure (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; ERR_SHOWN=1' ERR

[ "$(id -u)" = 0 ] || die "must run as root (it may install packages and start PostgreSQL)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ensure-postgres.XXXXXX")"
LOG="$WORK/log"
: >"$LOG"
export PGPASSFILE="$WORK/no-such-pgpass"   # a missing file: libpq silently uses no password file
trap 'rm -rf "$WORK"' EXIT

# Run a noisy command with its output in $LOG; on failure show the log's tail and stop.
run() {
  echo "+ $*" >>"$LOG"
  if ! "$@" >>"$LOG" 2>&1 9>&-; then
    echo "ensure-postgres: ERROR: command failed: $*" >&2
    echo "---- last 60 lines of output ----" >&2
    tail -n 60 "$LOG" >&2
    exit 1
  fi
}

# Serialize concurrent runs (two CI jobs must not both install or build at once).
# Every command that may start a daemon (pg_ctlcluster, apt's postinst) runs with fd 9 closed
# (see run()), or the daemon would inherit the lock and hold it forever.
exec 9>"${TMPDIR:-/tmp}/helix-ensure-postgres.lock"
flock -w 900 9 || die "timed out waiting for another ensure-postgres run to finish"

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found: install PostgreSQL $* by hand"
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    run apt-get update -o Acquire::Retries=3
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  run apt-get install -y --no-install-recommends -o Acquire::Retries=3 "$@"
}

# psql as postgres over TCP, password-less; psql_db DB runs against another database.
psql_db() { local db="$1"; shift; psql "postgresql://postgres@${HOST}:${PORT}/$db" -w -X -v ON_ERROR_STOP=1 -Atq "$@"; }
psql_admin() { psql_db postgres "$@"; }

# ---------------------------------------------------------------- 1. server installed
newest_major() {
  # Newest installed server major version (e.g. 15), from the binaries actually present.
  local d
  for d in /usr/lib/postgresql/*/bin/postgres; do
    if [ -x "$d" ]; then basename "$(dirname "$(dirname "$d")")"; fi
  done | sort -V | tail -n1
}

MAJOR="$(newest_major)"
if [ -z "$MAJOR" ] || ! command -v psql >/dev/null || ! command -v pg_ctlcluster >/dev/null; then
  log "PostgreSQL server not installed; installing Debian's postgresql"
  apt_install postgresql postgresql-client
  MAJOR="$(newest_major)"
  [ -n "$MAJOR" ] || die "postgresql installed but no /usr/lib/postgresql/*/bin/postgres found"
fi

# ---------------------------------------------------------------- 2. server running
pg_status() { local rc=0; pg_isready -q -h "$HOST" -p "$PORT" -t 3 || rc=$?; echo "$rc"; }

status="$(pg_status)"
if [ "$status" != 0 ]; then
  # Prefer the newest existing cluster (as the machine set-up does: ls /etc/postgresql); else create one.
  CLUSTER_VER="$( (ls /etc/postgresql 2>/dev/null || true) | sort -V | tail -n1)"
  if [ -z "$CLUSTER_VER" ] || [ ! -f "/etc/postgresql/$CLUSTER_VER/main/postgresql.conf" ]; then
    CLUSTER_VER="$MAJOR"
    log "creating cluster $CLUSTER_VER/main on port $PORT"
    run pg_createcluster -p "$PORT" "$CLUSTER_VER" main
  fi
  if [ "$status" = 2 ] || [ "$status" = 3 ]; then   # 2 = no response (not running); 1 = starting up
    log "starting PostgreSQL cluster $CLUSTER_VER/main"
    # Retried: right after a postmaster was SIGKILLed its pid stays a zombie until PID 1 reaps it
    # (~1-2 s on these machines), and the new postmaster refuses to start ("lock file
    # .s.PGSQL.5432.lock already exists"). Seen here.
    for attempt in 1 2 3 4 5 6; do
      echo "+ pg_ctlcluster start (attempt $attempt)" >>"$LOG"
      if pg_ctlcluster --skip-systemctl-redirect "$CLUSTER_VER" main start >>"$LOG" 2>&1 9>&-; then break; fi
      case "$(pg_status)" in 0|1) break ;; esac   # started meanwhile by someone else
      if [ "$attempt" = 6 ]; then
        echo "ensure-postgres: ERROR: pg_ctlcluster $CLUSTER_VER main start failed; output:" >&2
        tail -n 60 "$LOG" >&2
        exit 1
      fi
      sleep 2
    done
  fi
  deadline=$((SECONDS + WAIT_SECS))
  until [ "$(pg_status)" = 0 ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      pg_lsclusters >&2 || true
      tail -n 20 "/var/log/postgresql/postgresql-$CLUSTER_VER-main.log" >&2 2>/dev/null || true
      die "PostgreSQL is not accepting connections on $HOST:$PORT after ${WAIT_SECS}s (is the cluster on another port, or listen_addresses not covering $HOST?)"
    fi
    sleep 0.5
  done
fi

# ---------------------------------------------------------------- 3. password-less access
if ! err="$(psql_admin -c 'select 1' 2>&1 >/dev/null)"; then
  case "$err" in
    *authentication*|*password*|*pg_hba.conf*) ;;
    *) die "cannot connect to $URL: $err" ;;
  esac
  log "password-less login as postgres refused ($err); adding loopback trust to pg_hba.conf"
  HBA="$(runuser -u postgres -- psql -X -Atqc 'SHOW hba_file' 2>/dev/null || true)"
  [ -n "$HBA" ] || HBA="$( (ls /etc/postgresql/*/main/pg_hba.conf 2>/dev/null || true) | sort -V | tail -n1)"
  [ -n "$HBA" ] && [ -f "$HBA" ] || die "cannot find pg_hba.conf to enable trust for 127.0.0.1"
  if ! grep -q '^# helix ensure-postgres' "$HBA"; then
    cp -p "$HBA" "$HBA.helix-backup"
    {
      echo '# helix ensure-postgres: password-less loopback access for the postgres role (CI/dev only)'
      echo 'host    all    postgres    127.0.0.1/32    trust'
      echo 'host    all    postgres    ::1/128         trust'
      cat "$HBA.helix-backup"
    } >"$HBA"
  fi
  if ! runuser -u postgres -- psql -X -Atqc 'select pg_reload_conf()' >/dev/null 2>&1; then
    run pg_ctlcluster --skip-systemctl-redirect "$(basename "$(dirname "$(dirname "$HBA")")")" main reload
  fi
  sleep 0.5
  err="$(psql_admin -c 'select 1' 2>&1 >/dev/null)" || die "still cannot connect to $URL after enabling trust in $HBA: $err"
fi
[ "$(psql_admin -c "select rolsuper or rolcreatedb from pg_roles where rolname = current_user")" = t ] \
  || die "role postgres on $HOST:$PORT may not CREATE DATABASE"

# ---------------------------------------------------------------- 4. pgvector
# Build against the major version of the server actually answering on $PORT.
SERVER_MAJOR="$(psql_admin -c "select current_setting('server_version_num')::int / 10000")"

vector_available() {
  [ "$(psql_admin -c "select count(*) from pg_available_extensions where name = 'vector'")" = 1 ]
}

# Loads the library for real (CREATE EXTENSION + an operator), in a transaction rolled back.
vector_works() {
  psql_db "$1" >/dev/null 2>&1 <<'SQL'
begin;
create extension if not exists vector;
select '[1,2,3]'::vector <-> '[1,2,4]'::vector, '[1,2]'::halfvec <=> '[2,1]'::halfvec;
rollback;
SQL
}

build_pgvector() {
  local pg_config="/usr/lib/postgresql/$SERVER_MAJOR/bin/pg_config"
  local t0=$SECONDS
  log "pgvector is not available for PostgreSQL $SERVER_MAJOR; building it from Debian's (trixie) source package"
  apt_install "postgresql-server-dev-$SERVER_MAJOR" build-essential dpkg-dev xz-utils ca-certificates
  [ -x "$pg_config" ] || die "$pg_config not found after installing postgresql-server-dev-$SERVER_MAJOR"

  # Private apt state holding only the trixie deb-src line (see the header comment).
  local apt_dir="$WORK/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts" "$apt_dir/prefs" "$apt_dir/cache/archives/partial" "$WORK/src"
  echo "$PGVECTOR_SRC_LINE" >"$apt_dir/sources.list"
  chmod 755 "$WORK"
  if id _apt >/dev/null 2>&1; then chown -R _apt "$apt_dir/lists/partial" "$WORK/src"; fi
  local apt_private=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=$apt_dir/parts"
    -o "Dir::Etc::Preferences=$apt_dir/prefs/none"
    -o "Dir::Etc::PreferencesParts=$apt_dir/prefs"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache=$apt_dir/cache"
    -o Acquire::Retries=3
  )
  log "fetching the pgvector source package (private trixie deb-src index)"
  run apt-get "${apt_private[@]}" update
  cd "$WORK/src"
  run apt-get "${apt_private[@]}" source pgvector
  cd - >/dev/null
  local src
  src="$(find "$WORK/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n1)"
  [ -n "$src" ] && [ -f "$src/Makefile" ] || die "apt-get source pgvector did not unpack a source tree"
  log "building $(basename "$src") with $pg_config"
  run make -C "$src" -j"$(nproc)" PG_CONFIG="$pg_config" OPTFLAGS=""
  run make -C "$src" install PG_CONFIG="$pg_config" OPTFLAGS=""

  # Verify in a scratch database that the extension can be created and used.
  local scratch="helix_ensure_pg_$$"
  run psql_admin -c "drop database if exists $scratch"
  run psql_admin -c "create database $scratch"
  local ok=0
  vector_works "$scratch" && ok=1
  psql_admin -c "drop database if exists $scratch" >/dev/null 2>&1 || true
  [ "$ok" = 1 ] || die "pgvector was built and installed but CREATE EXTENSION vector fails (see: psql $URL)"
  log "pgvector $(psql_admin -c "select default_version from pg_available_extensions where name='vector'") installed for PostgreSQL $SERVER_MAJOR in $((SECONDS - t0))s"
}

if ! vector_available; then
  build_pgvector
elif ! vector_works postgres; then
  # Control file present but library broken/mismatched (e.g. after a server major upgrade): rebuild.
  log "pgvector is listed but does not load; rebuilding"
  build_pgvector
fi

echo "$URL"
