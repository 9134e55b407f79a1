#!/usr/bin/env bash
# Validates docker-compose.yml (`npm run deploy:check`, and .ci/run): `config -q` parses and
# interpolates the file without a Docker engine. Uses the `docker compose` plugin, else the
# standalone docker-compose (Debian's 1.29 is enough).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose=(docker-compose)
else
  echo "ERROR: neither \`docker compose\` nor docker-compose is installed (Debian: apt-get install docker-compose)" >&2
  exit 1
fi
# The file requires HELIX_MASTER_KEY (the instances must share one); a placeholder stands in for it.
HELIX_MASTER_KEY="${HELIX_MASTER_KEY:-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=}" \
  "${compose[@]}" -f docker-compose.yml config -q
echo "docker-compose.yml is valid (${compose[*]} config)"
