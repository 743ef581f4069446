#!/usr/bin/env bash
# Installs or updates meter-gateway as a systemd service, either from a built clone of the repository
#   npm ci && npm run build && sudo systemd/install.sh
# or from a release bundle made on another machine (`npm run release`), so a small board never
# compiles (the clone only needs this script):
#   sudo systemd/install.sh --bundle meter-gateway-0.2.0.bin
# Creates the service user, puts the build (or the bundle's payload) under
# /opt/meter-gateway/releases, points `previous` at the release that ran so far and `current` at the
# new one, keeps the newest three releases, installs the launcher, a first config file (only when none
# exists, the admin's file is never overwritten) and the unit, then starts the service, or restarts it
# when it runs already, and reports the version now running. Safe to run again: that is the update.
# Options (defaults in brackets):
#   --bundle FILE     install this release bundle instead of the clone's build
#   --node PATH       [/usr/bin/node] the Node.js the unit runs (20 or newer); another path is
#                     written into the unit's ExecStart
#   --http-port N     HTTP port of the service [80]; written as a drop-in, kept by later runs
#   --prefix DIR [/opt/meter-gateway]   --config-dir DIR [/etc/meter-gateway]
#   --state-dir DIR [/var/lib/meter-gateway]   --user NAME [meter-gateway]
#   --unit-dir DIR [/etc/systemd/system]
#   --no-systemd      copy files only: no unit, no systemctl (the unit's paths are the defaults)
set -euo pipefail

prefix=/opt/meter-gateway
config_dir=/etc/meter-gateway
state_dir=/var/lib/meter-gateway
user=meter-gateway
unit_dir=/etc/systemd/system
node=/usr/bin/node
bundle=
http_port=
systemd=yes
keep=3
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle=$2; shift 2 ;;
    --node) node=$2; shift 2 ;;
    --http-port) http_port=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --config-dir) config_dir=$2; shift 2 ;;
    --state-dir) state_dir=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --unit-dir) unit_dir=$2; shift 2 ;;
    --no-systemd) systemd=no; shift ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "install.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (sudo systemd/install.sh)"

# The unit starts "$node" by its path, so that node (not the first one on PATH) must be 20 or newer.
if [ ! -x "$node" ]; then
  found=$(command -v node || true)
  hint="install Node.js 20 or newer (README \"Node.js on Raspberry Pi OS\")"
  [ -n "$found" ] && hint="$hint, or run the one at $found: install.sh --node $found"
  fail "the service runs $node, which does not exist; $hint"
fi
"$node" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
  fail "$node is Node.js $("$node" --version); 20 or newer is needed (README \"Node.js on Raspberry Pi OS\")"
case "$http_port" in
  '' | [1-9] | [1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9] | [1-9][0-9][0-9][0-9][0-9]) ;;
  *) fail "--http-port must be a port number, not $http_port" ;;
esac

if [ -n "$bundle" ]; then
  [ -f "$bundle" ] || fail "no bundle file $bundle"
else
  [ -f "$repo/dist/src/main.js" ] && [ -f "$repo/dist/scripts/launcher.js" ] &&
    [ -f "$repo/dist/scripts/production-packages.js" ] ||
    fail "no build in $repo/dist: run 'npm ci && npm run build' first, or install a bundle with --bundle FILE"
  [ -d "$repo/node_modules" ] || fail "no node_modules in $repo: run 'npm ci' first"
fi

service_active() {
  [ "$systemd" = yes ] && command -v systemctl >/dev/null && systemctl is-active --quiet meter-gateway
}

# The port the service will listen on: --http-port, else an earlier run's drop-in, else the unit's 80.
dropin="$unit_dir/meter-gateway.service.d/http-port.conf"
serving=
[ -f "$dropin" ] && serving=$(sed -n 's/^Environment=METER_GATEWAY_HTTP_PORT=//p' "$dropin")
serving=${serving:-80}
port=${http_port:-$serving}
# Another program on that port (a web server, Pi-hole) would make every start fail (the daemon
# exits 78, which the launcher never takes for a bad release). The running service's own port is
# its own listener; a port that changes is checked whether the service runs or not.
if [ "$systemd" = yes ] && { [ "$port" != "$serving" ] || ! service_active; } && command -v ss >/dev/null; then
  listener=$(ss -Hltnp "sport = :$port" 2>/dev/null | head -n 1 | tr -s ' ')
  [ -z "$listener" ] ||
    fail "port $port is in use ($listener); choose another HTTP port: install.sh --http-port 8080"
fi

if ! id "$user" >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home --home-dir "$state_dir" \
    --shell /usr/sbin/nologin "$user"
  id "$user" >/dev/null 2>&1 || fail "useradd did not create the user $user"
  echo "created system user $user"
fi
# Serial and optical adapters belong to group dialout.
if getent group dialout >/dev/null && [ "$user" != root ]; then usermod -a -G dialout "$user"; fi

install -d -m 0755 "$prefix" "$prefix/releases"
staging=$(mktemp -d "$prefix/releases/.staging-XXXXXX")
trap 'rm -rf "$staging"' EXIT

# Release bundle format: systemd/README.md "Release bundle format". Integers are big-endian.
# `len` bytes of the bundle from byte `offset`. tail ends with SIGPIPE when head has enough; that is
# the expected end, not an error (pipefail).
bundle_bytes() { { tail -c +$(($1 + 1)) "$bundle" || true; } | head -c "$2"; }

unpack_bundle() {
  local magic format vlen version plen want size have
  magic=$(head -c 8 "$bundle")
  [ "$magic" = MGBUNDLE ] || fail "$bundle is not a release bundle (no MGBUNDLE header)"
  format=$(od -An -tu2 --endian=big -j8 -N2 "$bundle" | tr -d ' ')
  [ "$format" = 1 ] || fail "$bundle has bundle format $format; this script knows format 1"
  vlen=$(od -An -tu2 --endian=big -j10 -N2 "$bundle" | tr -d ' ')
  version=$(bundle_bytes 12 "$vlen")
  [[ "$version" =~ ^[0-9A-Za-z.+-]{1,64}$ ]] || fail "$bundle has an invalid version"
  plen=$(od -An -tu8 --endian=big -j$((12 + vlen)) -N8 "$bundle" | tr -d ' ')
  want=$(od -An -tx1 -j$((20 + vlen)) -N32 "$bundle" | tr -d ' \n')
  size=$(stat -c %s "$bundle")
  [ "$size" = $((52 + vlen + plen)) ] || [ "$size" = $((152 + vlen + plen)) ] ||
    fail "$bundle is $size bytes, its header says $((52 + vlen + plen)) (truncated or not a bundle)"
  have=$(bundle_bytes $((52 + vlen)) "$plen" | sha256sum | cut -d' ' -f1)
  [ "$have" = "$want" ] || fail "$bundle: payload SHA-256 $have does not match the header's $want"
  bundle_bytes $((52 + vlen)) "$plen" | tar -xz --no-same-owner -C "$staging"
  "$node" -e 'const p = require(process.argv[1]); process.exit(p.name === "meter-gateway" && p.version === process.argv[2] ? 0 : 1)' \
    "$staging/package.json" "$version" || fail "$bundle: package.json is not meter-gateway $version"
  [ -f "$staging/dist/src/main.js" ] && [ -f "$staging/dist/scripts/launcher.js" ] ||
    fail "$bundle has no dist/src/main.js or launcher"
  # The updater's name for a bundle: <version>-<first 12 hex digits of the payload SHA-256>.
  id="$version-${want:0:12}"
}

copy_build() {
  local version
  version=$("$node" -p "require('$repo/package.json').version")
  # One release per second at most: a second run within the same second waits for the next.
  while id="$version-local-$(date -u +%Y%m%d%H%M%S)" && [ -e "$prefix/releases/$id" ]; do sleep 1; done
  # The build without its tests, benchmarks and build info, and only the production packages
  # (package-lock.json's, as a release bundle holds them): the development tools are three quarters
  # of node_modules, slow to copy to an SD card. One cp for all of it (--parents keeps each path
  # under the staging directory): a cp and a mkdir per package cost a process start each.
  local paths roots dir entry
  paths=(package.json package-lock.json config systemd)
  [ -f "$repo/LICENSE" ] && paths+=(LICENSE)
  for entry in "$repo"/dist/* "$repo"/dist/.[!.]*; do
    [ -e "$entry" ] || continue
    case "${entry##*/}" in test | bench | .tsbuildinfo) continue ;; esac
    paths+=("dist/${entry##*/}")
  done
  roots=$("$node" "$repo/dist/scripts/production-packages.js" "$repo") ||
    fail "cannot list the production packages of $repo/package-lock.json"
  while IFS= read -r dir; do
    # An optional package for another platform is in the lock but not installed.
    if [ -n "$dir" ] && [ -d "$repo/$dir" ]; then paths+=("$dir"); fi
  done <<<"$roots"
  (cd "$repo" && cp -a --parents "${paths[@]}" "$staging/")
}

if [ -n "$bundle" ]; then unpack_bundle; else copy_build; fi
release="$prefix/releases/$id"
if [ -e "$release" ]; then
  echo "release $id is installed already; switching to it"
else
  chmod 0755 "$staging"
  mv -T "$staging" "$release"
fi
touch "$release"

# previous first, then current: the launcher rolls back to `previous` when `current` never gets
# ready. Relative links, each replaced by renaming a new link over it (atomic).
old=$(readlink "$prefix/current" 2>/dev/null || true)
if [ -n "$old" ] && [ "$old" != "releases/$id" ] && [ -d "$prefix/$old" ]; then
  ln -sfn "$old" "$prefix/previous.tmp" && mv -T "$prefix/previous.tmp" "$prefix/previous"
fi
ln -sfn "releases/$id" "$prefix/current.tmp" && mv -T "$prefix/current.tmp" "$prefix/current"

# Keep the newest $keep releases. Never removed: current, previous (the launcher's rollback target)
# and the last release that reported READY (`confirmed`: the one a rollback may need next, even
# when a rollback left previous equal to current). The release the launcher rolled back from
# (`failed`) goes first.
keep_current=$(basename "$(readlink "$prefix/current")")
keep_previous=$(basename "$(readlink "$prefix/previous" 2>/dev/null || echo none)")
keep_confirmed=$(head -n 1 "$prefix/confirmed" 2>/dev/null || echo none)
failed_id=$(head -n 1 "$prefix/failed" 2>/dev/null || echo none)
kept=0
for name in $(printf '%s\n' "$keep_current" "$keep_previous" "$keep_confirmed" | sort -u); do
  [ -d "$prefix/releases/$name" ] && kept=$((kept + 1))
done
while IFS= read -r dir; do
  name=$(basename "$dir")
  [ "$name" = "$keep_current" ] || [ "$name" = "$keep_previous" ] || [ "$name" = "$keep_confirmed" ] && continue
  if [ "$name" != "$failed_id" ] && [ "$kept" -lt "$keep" ]; then
    kept=$((kept + 1))
    continue
  fi
  rm -rf "$dir"
  echo "removed old release $name"
done < <(ls -1dt "$prefix"/releases/*/)

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
was_active=no
service_active && was_active=yes
install -d -m 0755 "$unit_dir"
sed "s|^ExecStart=/usr/bin/node |ExecStart=$node |" "$release/systemd/meter-gateway.service" \
  >"$unit_dir/meter-gateway.service"
chmod 0644 "$unit_dir/meter-gateway.service"
if [ -n "$http_port" ]; then
  install -d -m 0755 "$(dirname "$dropin")"
  printf '[Service]\nEnvironment=METER_GATEWAY_HTTP_PORT=%s\n' "$http_port" >"$dropin"
fi
systemctl daemon-reload
systemctl enable meter-gateway >/dev/null
# A Type=notify unit: start and restart return when the app has reported READY, or when the
# launcher has rolled back to `previous`, so `current` then names the release that runs.
if [ "$was_active" = yes ]; then systemctl restart meter-gateway; else systemctl start meter-gateway; fi
if ! systemctl is-active --quiet meter-gateway; then
  # 78 (EX_CONFIG): the daemon cannot listen on its HTTP port; the release is fine and stays.
  [ "$(systemctl show -p ExecMainStatus --value meter-gateway 2>/dev/null)" = 78 ] &&
    fail "meter-gateway cannot run with this configuration (exit 78, e.g. HTTP port $port in use); release $id stays installed, nothing was rolled back; choose another port: install.sh --http-port N (journalctl -u meter-gateway -n 50)"
  fail "meter-gateway did not start; see: journalctl -u meter-gateway -n 50"
fi
running=$(basename "$(readlink "$prefix/current")")
[ "$running" = "$id" ] ||
  fail "release $id did not start; the launcher rolled back to $running (journalctl -u meter-gateway)"
echo "meter-gateway $("$node" -p "require('$prefix/current/package.json').version") ($running) is running on HTTP port $port: journalctl -u meter-gateway -f"
