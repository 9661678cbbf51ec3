#!/usr/bin/env bash
# Makes the local base image the container test builds on, where no image registry can be
# reached: a minimal Debian bookworm (debootstrap --variant=minbase from the Debian mirror apt
# already uses) imported as localhost/bookworm-min. The root tarball is cached, so only the
# first run pays for debootstrap; later runs only import it (or find the image present).
#   scripts/container_base.sh [IMAGE]     (default localhost/bookworm-min)
# Env: AGENT_CONTAINER_CACHE (default ~/.cache/agent-container), DEBIAN_MIRROR (default: the
# first Debian URI in /etc/apt/sources.list{,.d/*}, else http://deb.debian.org/debian).
set -euo pipefail

image="${1:-localhost/bookworm-min}"
cache="${AGENT_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-container}"
tarball="$cache/bookworm-min.tar"

if podman image exists "$image"; then
  echo "base image $image present"
  exit 0
fi

if [ ! -s "$tarball" ]; then
  mirror="${DEBIAN_MIRROR:-}"
  if [ -z "$mirror" ]; then
    # deb822 lines (URIs: …) or one-line entries (deb URI bookworm main); skip security.
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
      sed -n -E 's#^(URIs:|deb)[[:space:]]+(\[[^]]*\][[:space:]]+)?(https?://[^[:space:]]*/debian)/?([[:space:]].*)?$#\3#p' |
      head -n1 || true)
  fi
  mirror="${mirror:-http://deb.debian.org/debian}"
  echo "debootstrap bookworm from $mirror (once, about 35 to 80 s; cached in $tarball)"
  mkdir -p "$cache"
  root=$(mktemp -d "$cache/root.XXXXXX")
  trap 'rm -rf "$root"' EXIT
  # Progress: debootstrap's stage lines as they come, and a count every 20 packages instead of
  # its line per package (the full output goes to the log).
  started=$SECONDS
  set +o pipefail
  { debootstrap --variant=minbase bookworm "$root" "$mirror" 2>&1; echo "exit $?"; } |
    tee "$cache/debootstrap.log" | awk -v t0="$started" '
      /^exit [0-9]+$/ { rc = $2; next }
      /^I: (Retrieving|Validating|Extracting|Unpacking|Configuring) [a-z0-9][^ ]* [^ ]+$/ {
        n[$2]++; if (n[$2] % 20 == 0) { printf "  %s: %d packages\n", tolower($2), n[$2]; fflush() }
        next
      }
      /^[IEW]: / { print "  " substr($0, 4); fflush() }
      END { exit rc }' ||
    { tail -n 20 "$cache/debootstrap.log"; echo "debootstrap failed (log: $cache/debootstrap.log)"; exit 1; }
  set -o pipefail
  echo "debootstrap done in $((SECONDS - started)) s; packing the root into $tarball"
  # Smaller and reproducible enough: no package lists or apt caches in the base.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" -c . >"$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
fi

echo "importing $tarball as $image"
podman import "$tarball" "$image" >/dev/null
echo "base image $image imported from $tarball"
