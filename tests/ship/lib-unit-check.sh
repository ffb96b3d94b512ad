# SPDX-License-Identifier: Apache-2.0
# Shared by the ship checks of a service unit and its .path trigger
# (fabrics-unit-check.sh, labels-unit-check.sh): the verdict helpers, the
# [Service] settings as systemd reads them, and the closing
# `systemd-analyze verify` plus the exposure figure.
#   . lib-unit-check.sh SERVICE_IN PATH_UNIT KMOD    (sets service_in, path_unit, kmod)
service_in=$1 path_unit=$2 kmod=$(realpath -m "$3")
bad=0
fail() { echo "FAIL: $*"; bad=1; }
ok() { echo "ok: $*"; }

# The [Service] settings as systemd reads them: key=value lines, comments out.
settings=$(grep -E '^[A-Za-z]+=' "$service_in")
has() { grep -qxF "$1" <<<"$settings"; }
none() { ! grep -qE "^($1)=" <<<"$settings"; }
all() { grep -E "^($1)=" <<<"$settings" || true; }

# unit_verify NAME: the unit installed as NAME.service (its @bindir@ the
# built CLI's directory) with NAME.path, verified by systemd-analyze, then
# its exposure printed; the verdict line "<check>: passed" or exit 1.
unit_verify() {
	local name=$1 check=$2 tmp out exposure
	if ! command -v systemd-analyze >/dev/null; then
		echo "note: systemd-analyze missing (Debian package systemd): verify skipped"
	elif [ ! -x "$kmod" ]; then
		echo "note: $kmod not built: verify skipped"
	else
		tmp=$(mktemp -d)
		# shellcheck disable=SC2064 # the directory of this call
		trap "rm -rf '$tmp'" EXIT
		sed "s|@bindir@|$(dirname "$kmod")|" "$service_in" >"$tmp/$name.service"
		cp "$path_unit" "$tmp/$name.path"
		if out=$(cd "$tmp" && systemd-analyze verify --man=no "./$name.service" "./$name.path" 2>&1) &&
		   [ -z "$out" ]; then
			ok "systemd-analyze verify: clean"
		else
			fail "systemd-analyze verify: $out"
		fi
		if exposure=$(cd "$tmp" && systemd-analyze security --offline=true "./$name.service" 2>&1 | tail -1); then
			echo "exposure: ${exposure##*: }"
		else
			echo "note: systemd-analyze security --offline unavailable here"
		fi
	fi
	[ "$bad" = 0 ] && echo "$check: passed" || exit 1
}
