#!/usr/bin/env bash
# Installs meter-gateway as a systemd service from a built clone of the repository:
#   npm ci && npm run build && sudo systemd/install.sh
# Creates the service user, copies this build as a release under /opt/meter-gateway/releases,
# points `current` at it, installs the launcher, a first config file (only when none exists, the
# admin's file is never overwritten) and the unit, then enables and starts the service.
# Options (defaults in brackets) exist for staging and tests:
#   --prefix DIR [/opt/meter-gateway]   --config-dir DIR [/etc/meter-gateway]
#   --state-dir DIR [/var/lib/meter-gateway]   --user NAME [meter-gateway]
#   --no-systemd   copy files only: no unit, no systemctl (the unit's paths are the defaults)
set -euo pipefail

prefix=/opt/meter-gateway
config_dir=/etc/meter-gateway
state_dir=/var/lib/meter-gateway
user=meter-gateway
systemd=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --config-dir) config_dir=$2; shift 2 ;;
    --state-dir) state_dir=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --no-systemd) systemd=no; shift ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "install.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (sudo systemd/install.sh)"
command -v node >/dev/null || fail "node not found; install Node.js 20 or newer first"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
  fail "Node.js $(node --version) is too old; 20 or newer is needed"
[ -f "$repo/dist/src/main.js" ] && [ -f "$repo/dist/scripts/launcher.js" ] ||
  fail "no build in $repo/dist: run 'npm ci && npm run build' first"
[ -d "$repo/node_modules" ] || fail "no node_modules in $repo: run 'npm ci' first"

if ! id "$user" >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home --home-dir "$state_dir" \
    --shell /usr/sbin/nologin "$user"
  echo "created system user $user"
fi
# Serial and optical adapters belong to group dialout.
if getent group dialout >/dev/null && [ "$user" != root ]; then usermod -a -G dialout "$user"; fi

version=$(node -p "require('$repo/package.json').version")
id="$version-local-$(date -u +%Y%m%d%H%M%S)"
release="$prefix/releases/$id"
install -d -m 0755 "$prefix" "$prefix/releases"
install -d -m 0755 "$release"
cp -a "$repo/package.json" "$repo/package-lock.json" "$repo/dist" "$repo/config" "$repo/systemd" "$release/"
[ -f "$repo/LICENSE" ] && cp -a "$repo/LICENSE" "$release/"
cp -a "$repo/node_modules" "$release/"
(cd "$release" && npm prune --omit=dev --no-audit --no-fund >/dev/null 2>&1) ||
  echo "install.sh: npm prune failed; the release keeps its development packages" >&2
rm -rf "$release/dist/test" "$release/dist/bench"

# The launcher and the updater expect relative links and a launcher beside releases/.
ln -sfn "releases/$id" "$prefix/current.tmp" && mv -T "$prefix/current.tmp" "$prefix/current"
install -m 0644 "$release/dist/scripts/launcher.js" "$prefix/launcher.mjs"
chown -R "$user:$user" "$prefix"
chown root:root "$prefix/launcher.mjs"

install -d -m 0750 -o "$user" -g "$user" "$state_dir"
install -d -m 0755 "$config_dir"
if [ ! -e "$config_dir/config.json" ]; then
  # The simulator until a meter is configured: edit meter.source (README "Configuration"), or
  # run `node $prefix/current/dist/src/main.js probe /dev/ttyUSB0` to find it.
  printf '{\n  "meter": { "source": "simulator" },\n  "log": { "level": "info" }\n}\n' >"$config_dir/config.json"
  chown "root:$user" "$config_dir/config.json"
  chmod 0640 "$config_dir/config.json"
  echo "wrote $config_dir/config.json (simulator; set meter.source for your meter)"
fi
echo "installed release $id in $prefix"

[ "$systemd" = yes ] || exit 0
command -v systemctl >/dev/null || fail "systemctl not found; rerun with --no-systemd and start the launcher yourself"
install -m 0644 "$repo/systemd/meter-gateway.service" /etc/systemd/system/meter-gateway.service
systemctl daemon-reload
systemctl enable --now meter-gateway
echo "meter-gateway is running: journalctl -u meter-gateway -f"
