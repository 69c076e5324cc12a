#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages listed in lab/packages.txt, the features'
# packages files and the lists given as arguments (a target's own needs,
# e.g. lab/packages-check.txt) that are missing. Idempotent: when every
# package is present it only checks and returns.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for list in "$@"; do
	[ -f "$list" ] || { echo "deps: ERROR: no package list $list" >&2; exit 1; }
done
mapfile -t want < <(cat "$here/packages.txt" "$here"/../features/*/packages "$@" 2>/dev/null |
	grep -v '^\s*#' | awk 'NF{print $1}' | sort -u)
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: ERROR: need root to install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
if ! apt-get update -q >/tmp/lab-apt-update.log 2>&1 ||
   grep -qE '^(Err|W: Failed to fetch)' /tmp/lab-apt-update.log; then
	echo "deps: ERROR: the Debian package manager cannot reach its archive (apt-get update failed, see /tmp/lab-apt-update.log)" >&2
	exit 1
fi
apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/lab-apt-install.log 2>&1 || {
	echo "deps: ERROR: apt-get install ${missing[*]} failed; tail of /tmp/lab-apt-install.log:" >&2
	tail -n 20 /tmp/lab-apt-install.log >&2
	exit 1
}
echo "deps: installed ${#missing[@]} packages in $(($(date +%s) - t0)) s"
