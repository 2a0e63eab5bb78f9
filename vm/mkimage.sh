#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# mkimage.sh DIR RELEASE "SUITES" LABEL=ABI[/SUITE]...
#
# Build the guest image of a Debian release into DIR (which must not
# exist; vm/image.sh names it and resolves the ABIs from vm/images.list):
#   DIR/root.img                 ext4 root filesystem (made with mkfs.ext4 -d)
#   DIR/vmlinuz-<kver>           kernels for direct -kernel boot
#   DIR/initrd.img-<kver>        small initrds (MODULES=list)
#   DIR/kernels                  one line per kernel: <label> <kver>
#
# debootstrap gives the plain release; the kernels come from the security
# suite (or backports: ABI/SUITE), so the rest of the packages is installed
# with apt inside a chroot, with every suite of SUITES.  The chroot needs
# proc, sys and dev; they are unmounted (trap) before the image is made.
set -euo pipefail

usage() { echo "usage: $0 DIR RELEASE SUITES LABEL=ABI[/SUITE]..." >&2; exit 2; }
[ $# -ge 4 ] || usage
dest=$1 release=$2 suites=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../kbuild/archive.sh
. "$here/../kbuild/archive.sh"
size=${MW57_IMAGE_SIZE:-8G}

[ ! -e "$dest" ] || { echo "mkimage: $dest exists" >&2; exit 1; }
work=$(mktemp -d "${dest}.tmp.XXXXXX")
root=$work/root
mounted=()

cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[i]}" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

mnt() { # mnt TYPE|--bind SRC DST
	mount "$@"
	mounted+=("${*: -1}")
}

packages=$(sed -e 's/#.*//' "$here/packages.list" | xargs)
# each kernel with its headers, from its suite when it names one
for k; do
	abi=${k#*=}
	sfx=
	[[ $abi != */* ]] || { sfx=/${abi#*/}; abi=${abi%/*}; }
	packages+=" linux-image-$abi$sfx linux-headers-$abi$sfx"
done

echo "mkimage: debootstrap $release into $root"
debootstrap --variant=minbase --include=ca-certificates \
	"$release" "$root" "$archive_mirror" >"$work/debootstrap.log" 2>&1 ||
	{ tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

# shellcheck disable=SC2086 # a list of words
archive_sources $suites >"$root/etc/apt/sources.list"
# (sid-style Valid-Until on a mirror's Release files)
echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/90mw57-valid"
# Never start services inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/90mw57"

# A small initrd: only what is needed to mount the virtio-blk ext4 root.
mkdir -p "$root/etc/initramfs-tools/conf.d"
echo 'MODULES=list' >"$root/etc/initramfs-tools/conf.d/mw57.conf"
printf '%s\n' virtio_pci virtio_blk ext4 >>"$root/etc/initramfs-tools/modules"

echo mw57-guest >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 mw57-guest\n::1 localhost\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 rw,relatime 0 1' >"$root/etc/fstab"

mnt -t proc proc "$root/proc"
mnt -t sysfs sysfs "$root/sys"
mnt --bind /dev "$root/dev"
mnt --bind /dev/pts "$root/dev/pts"

echo "mkimage: apt-get install ($suites)"
chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
	sh -c "apt-get update && apt-get install -y $packages &&
		mkdir -p /var/cache/mw57-debs &&
		cp /var/cache/apt/archives/linux-image-[0-9]*.deb \
			/var/cache/apt/archives/linux-headers-[0-9]*-amd64_*.deb /var/cache/mw57-debs/ &&
		apt-get clean" \
	>"$work/apt.log" 2>&1 || { tail -n 40 "$work/apt.log" >&2; exit 1; }

install -m 0755 "$here/guest/mw57-boot" "$root/sbin/mw57-boot"
rm -f "$root/usr/sbin/policy-rc.d"
# The guest has no network: apt works only on local .debs.  The kernel
# image and header .debs stay in /var/cache/mw57-debs for the packaging
# suite, which reinstalls headers to see DKMS autoinstall and removes a
# kernel.
rm -rf "$root"/var/lib/apt/lists/*_Packages "$root"/var/cache/apt/*.bin

for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
	umount "${mounted[i]}"
done
mounted=()

: >"$work/kernels"
for k in "$root"/boot/vmlinuz-*; do
	kver=${k##*/vmlinuz-}
	label=
	for l; do
		[ "${l#*=}" != "$kver" ] && [ "${l#*=}" != "$kver/${l##*/}" ] || label=${l%%=*}
	done
	[ -n "$label" ] || { echo "mkimage: $kver was not asked for" >&2; exit 1; }
	[ -d "$root/usr/src/linux-headers-$kver" ] ||
		{ echo "mkimage: no headers for $kver" >&2; exit 1; }
	cp "$k" "$work/vmlinuz-$kver"
	cp "$root/boot/initrd.img-$kver" "$work/initrd.img-$kver"
	echo "$label $kver" >>"$work/kernels"
done
for l; do
	grep -q "^${l%%=*} " "$work/kernels" ||
		{ echo "mkimage: no kernel for ${l%%=*} (${l#*=})" >&2; exit 1; }
done

echo "mkimage: mkfs.ext4 -d ($size, sparse)"
mkfs.ext4 -q -F -L mw57root -E root_owner=0:0 -d "$root" "$work/root.img" "$size"
rm -rf "$root"
mv "$work" "$dest"
trap - EXIT
echo "mkimage: done: $dest"
cat "$dest/kernels"
