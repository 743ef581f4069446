#!/bin/sh
# Entry point of the container image: the daemon with its state in /data and, when present, the
# admin config file. As a Home Assistant add-on (/data/options.json exists) the config file is
# written from the add-on options first (dist/src/addon/main.js). exec: SIGTERM reaches node.
set -eu
config=/etc/meter-gateway/config.json
if [ -f /data/options.json ]; then
  config=/tmp/meter-gateway-addon.json
  node dist/src/addon/main.js --options /data/options.json --out "$config"
fi
if [ -f "$config" ]; then set -- --config "$config" "$@"; fi
exec node --enable-source-maps --max-semi-space-size=4 dist/src/main.js --state-dir /data "$@"
