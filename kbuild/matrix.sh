#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# matrix.sh [CACHE]: the compile matrix (make matrix).  For each release
# of kbuild/matrix.list: resolve its header metapackages to kernel ABIs
# from the archive (apt lists kept per release under CACHE/matrix,
# refreshed every run), build or reuse a minimal chroot of the release
# with those headers, its compiler and linux-kbuild (mmdebstrap; cached,
# keyed by the resolved package versions), and build every module there
# for every ABI with W=1 and with sparse (kbuild/host-build.sh --root).
# Prints one line per ABI and build, then a table; any failure fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-${MW57_CACHE:-/var/cache/mw57}}/matrix
archive_dir=$cache
# shellcheck source=archive.sh
. "$here/archive.sh"
mkdir -p "$cache"
start=$(date +%s)

results=()
rc=0
# ABIs without a sparse build, and the probe sets that had one
nosparse_abis=()
declare -A checked_sets probe_set where
while IFS='|' read -r rel suites metas; do
	case $rel in '' | \#*) continue ;; esac
	rel=${rel// /}
	d=$cache/apt-$rel
	# shellcheck disable=SC2086 # a list of words
	if ! archive_update "$rel" $suites; then
		echo "matrix: $rel: apt-get update failed (see $d/update.log)"
		results+=("$rel: apt-get update FAILED")
		rc=1
		continue
	fi
	abis=() pkgs=()
	for m in $metas; do
		nosparse=0
		[ "${m%!nosparse}" = "$m" ] || { m=${m%!nosparse}; nosparse=1; }
		a=$(archive_abi_of "$rel" "$m") || a=
		if [ -z "$a" ]; then
			echo "matrix: $rel: $m names no kernel ABI in the archive"
			results+=("$rel $m: FAILED (no ABI)")
			rc=1
			continue
		fi
		abis+=("$a")
		# where users get it: the release, or the suite the line names
		where[$a]=$rel
		[[ $m != */* ]] || where[$a]=${m#*/}
		pkgs+=("linux-headers-$a")
		[ "$nosparse" = 0 ] || nosparse_abis+=("$a")
	done
	[ ${#abis[@]} -gt 0 ] || continue
	# the compiler each header package asks for, make and sparse
	for p in "${pkgs[@]}"; do
		archive_apt "$rel" apt-cache show "$p" | sed -n 's/^Depends: //p' | head -n1 |
			grep -oE '\bgcc-[0-9]+\b' || true
	done | sort -u >"$d/compilers"
	mapfile -t -O ${#pkgs[@]} pkgs <"$d/compilers"
	pkgs+=(make sparse)
	versions=$(for p in "${pkgs[@]}"; do echo "$p=$(archive_candidate "$rel" "$p")"; done)
	key=$({ echo "$rel $suites"; echo "$versions"; sed -n '/^# --- chroot/,/^# ---$/p' "$0"; } |
		sha256sum | cut -c1-16)
	root=$cache/$rel-$key
	# --- chroot: a minimal root of the release with the packages above
	exec {lock}>"$cache/$rel.lock"
	flock "$lock"
	if [ ! -f "$root/.complete" ]; then
		echo "matrix: $rel: building the chroot $root (${pkgs[*]})"
		rm -rf "$root"
		# (the release's sources.list on stdin: "-"; sid's Release files
		# carry a Valid-Until that a mirror's copy may be past)
		if ! mmdebstrap --variant=apt --include="$(IFS=,; echo "${pkgs[*]}")" \
			--aptopt='Acquire::Check-Valid-Until "false"' \
			"$rel" "$root" - <"$d/sources.list" >"$cache/$rel-$key.log" 2>&1; then
			echo "matrix: $rel: mmdebstrap failed (see $cache/$rel-$key.log)"
			tail -n 5 "$cache/$rel-$key.log"
			rm -rf "$root"
			exec {lock}>&-
			results+=("$rel: chroot FAILED")
			rc=1
			continue
		fi
		touch "$root/.complete"
		# older chroots of the release are stale
		for old in "$cache/$rel"-*; do
			[ "$old" = "$root" ] || [ ! -d "$old" ] || rm -rf "$old" "$old.log"
		done
	fi
	# ---
	for a in "${abis[@]}"; do
		# Debian's 7.x headers lack the script kbuild runs before sparse
		common=$(sed -n 's:^include \(/.*\)/Makefile$:\1:p' "$root/usr/src/linux-headers-$a/Makefile")
		if grep -q checker-valid.sh "$root$common/Makefile" 2>/dev/null &&
			[ ! -e "$root$common/scripts/checker-valid.sh" ]; then
			install -m 0755 "$here/checker-valid.sh" "$root$common/scripts/checker-valid.sh"
		fi
		probe_set[$a]=$("$here/probes.sh" --root "$root" "/lib/modules/$a/build" | xargs)
		echo "$a ($rel): ${probe_set[$a]}"
		gcc=$(chroot "$root" sh -c "sed -n 's/^CONFIG_CC_VERSION_TEXT=\"\\(.*\\)\"/\\1/p' /lib/modules/$a/build/.config" |
			grep -oE 'gcc-[0-9]+' | head -n1)
		for how in W=1 "C=2 CF=-D__CHECK_ENDIAN__"; do
			if [ "${how%% *}" = C=2 ] && [[ " ${nosparse_abis[*]} " == *" $a "* ]]; then
				results+=("$(printf '%-16s %-26s %-7s %-5s' "${where[$a]}" "$a" "${gcc:-gcc?}" C=2) nosparse:$a")
				continue
			fi
			# shellcheck disable=SC2086 # make arguments
			if line=$("$here/host-build.sh" --root "$root" "$a" "/mw57-build/$a" $how); then
				echo "$line"
				[ "${how%% *}" != C=2 ] || checked_sets[${probe_set[$a]}]=$a
				results+=("$(printf '%-16s %-26s %-7s %-5s ok' "${where[$a]}" "$a" "${gcc:-gcc?}" "${how%% *}")")
			else
				echo "$line"
				results+=("$(printf '%-16s %-26s %-7s %-5s FAILED: %s' "${where[$a]}" "$a" "${gcc:-gcc?}" "${how%% *}" \
					"$(echo "$line" | sed -n '1s/.*FAILED: //p' | cut -c1-160)")")
				rc=1
			fi
		done
	done
	exec {lock}>&-
done <"$here/matrix.list"

# a sparse build left out (!nosparse) passes when the same code was checked
for i in "${!results[@]}"; do
	r=${results[i]}
	[[ $r == *" nosparse:"* ]] || continue
	a=${r##* nosparse:}
	r=${r% nosparse:*}
	by=${checked_sets[${probe_set[$a]:-none}]:-}
	if [ -n "$by" ]; then
		results[i]="$r ok (no sparse here, see matrix.list; same probe set as $by, checked)"
	else
		results[i]="$r FAILED: no sparse here (matrix.list), and no ABI with its probe set was checked"
		rc=1
	fi
done

echo "matrix: release, ABI, compiler, build, result ($(($(date +%s) - start)) s):"
printf '  %s\n' "${results[@]}"
# the last matrix, for kbuild/support-table.sh
mkdir -p "$here/../build"
printf '%s\n' "${results[@]}" >"$here/../build/matrix.txt"
exit "$rc"
