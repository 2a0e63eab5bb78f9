# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# What Debian's archive offers now, per release, without touching the
# host's apt: each release has its own sources and lists under
# $archive_dir/apt-RELEASE (MW57_CACHE/matrix by default).  Sourced by
# kbuild/matrix.sh and vm/image.sh, the one place that resolves kernel
# metapackages to ABIs.
#
#   archive_update REL SUITE...     write REL's sources (main), refresh lists
#   archive_apt REL CMD ARGS...     apt-get/apt-cache on REL's lists
#   archive_candidate REL PKG[/SUITE]  the version apt would take (from SUITE)
#   archive_abi_of REL META[/SUITE]    the kernel ABI a linux-image-* or
#                                   linux-headers-* metapackage names

archive_dir=${archive_dir:-${MW57_CACHE:-/var/cache/mw57}/matrix}
archive_mirror=${MW57_MIRROR:-http://deb.debian.org/debian}
archive_security=${MW57_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# archive_sources SUITE...: apt source lines, main only
archive_sources() {
	local s
	for s; do
		case $s in
		*-security) echo "deb $archive_security $s main" ;;
		*) echo "deb $archive_mirror $s main" ;;
		esac
	done
}

archive_apt() {
	local d=$archive_dir/apt-$1
	shift
	# (sid's Release file may be past its Valid-Until on a mirror)
	"$@" -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Dir::State::Status=/dev/null -o APT::Architecture=amd64 \
		-o Debug::NoLocking=1 -o Acquire::Check-Valid-Until=false
}

archive_update() {
	local rel=$1 d=$archive_dir/apt-$1 fd rc=0
	shift
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	# (one update of a release's lists at a time: runs may overlap)
	exec {fd}>"$d.lock"
	flock "$fd"
	archive_sources "$@" >"$d/sources.list"
	archive_apt "$rel" apt-get -q update >"$d/update.log" 2>&1 || rc=$?
	exec {fd}>&-
	return "$rc"
}

archive_candidate() {
	local pkg=${2%/*} suite=
	[ "$pkg" = "$2" ] || suite=${2#*/}
	if [ -n "$suite" ]; then
		archive_apt "$1" apt-cache madison "$pkg" |
			awk -F ' [|] ' -v s=" $suite/" 'index($3, s) { print $2; exit }'
	else
		archive_apt "$1" apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p' | grep -v '(none)'
	fi
}

archive_abi_of() {
	local v
	v=$(archive_candidate "$1" "$2") || return 1
	[ -n "$v" ] || return 1
	archive_apt "$1" apt-cache show "${2%/*}=$v" | sed -n 's/^Depends: //p' | head -n1 |
		grep -oE 'linux-(image|headers)-[0-9][^ ,]*' | head -n1 | sed -E 's/^linux-(image|headers)-//'
}
