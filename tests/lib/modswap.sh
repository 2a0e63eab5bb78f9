# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# One module name, two objects: ours (DKMS, under updates/) and the
# kernel's own (under kernel/, the debug kernel's in-tree build).

# mod_path ours|kernel MODULE: the object's path, empty when there is none
mod_path() {
	local dir=updates
	[ "$1" = ours ] || dir=kernel
	find "/lib/modules/$(uname -r)/$dir" -name "$2.ko*" | head -n1
}

# mod_swap MODULE PATH: unload MODULE, load the object at PATH (its
# dependencies through modprobe) and check by srcversion that it is the
# one in /sys/module (the debug kernel sets MODULE_SRCVERSION_ALL:
# in-tree modules have one)
mod_swap() {
	local deps
	if [ -d "/sys/module/$1" ]; then
		modprobe -r "$1" 2>/dev/null || rmmod "$1" || return 1
	fi
	deps=$(modinfo -F depends "$2" | tr ',' ' ')
	# shellcheck disable=SC2086 # a list of module names
	[ -z "$deps" ] || modprobe -a $deps || return 1
	insmod "$2" || return 1
	mod_live "$1" "$2"
}

# mod_live MODULE PATH: the loaded MODULE is the object at PATH (srcversion)
mod_live() {
	local want
	want=$(modinfo -F srcversion "$2")
	[ -n "$want" ] && [ "$(cat "/sys/module/$1/srcversion" 2>/dev/null)" = "$want" ]
}
