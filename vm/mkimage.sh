#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Build the Debian bookworm guest image into DIR (which must not exist):
#   DIR/root.img                 ext4 root filesystem (made with mkfs.ext4 -d)
#   DIR/vmlinuz-<kver>           kernels for direct -kernel boot
#   DIR/initrd.img-<kver>        small initrds (MODULES=list)
#   DIR/kernels                  one line per kernel: <series> <kver>
#
# debootstrap gives plain bookworm; the kernels must come from
# bookworm-security to match linux-headers-amd64, so the rest of the
# packages is installed with apt inside a chroot.  The chroot needs proc,
# sys and dev; they are unmounted (trap) before the image is made.
set -euo pipefail

usage() { echo "usage: $0 DIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
dest=$1
here=$(cd "$(dirname "$0")" && pwd)
mirror=${MW57_MIRROR:-http://deb.debian.org/debian}
secmirror=${MW57_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
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

echo "mkimage: debootstrap bookworm into $root"
debootstrap --variant=minbase --include=ca-certificates \
	bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
	{ tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $secmirror bookworm-security main
EOF
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

echo "mkimage: apt-get install (bookworm + updates + security)"
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
	series=$(echo "$kver" | cut -d. -f1-2)
	[ -d "$root/usr/src/linux-headers-$kver" ] ||
		{ echo "mkimage: no headers for $kver" >&2; exit 1; }
	cp "$k" "$work/vmlinuz-$kver"
	cp "$root/boot/initrd.img-$kver" "$work/initrd.img-$kver"
	echo "$series $kver" >>"$work/kernels"
done
if ! grep -q '^6\.1 ' "$work/kernels" || ! grep -q '^6\.12 ' "$work/kernels"; then
	echo "mkimage: need both a 6.1 and a 6.12 kernel" >&2
	cat "$work/kernels" >&2
	exit 1
fi

echo "mkimage: mkfs.ext4 -d ($size, sparse)"
mkfs.ext4 -q -F -L mw57root -E root_owner=0:0 -d "$root" "$work/root.img" "$size"
rm -rf "$root"
mv "$work" "$dest"
trap - EXIT
echo "mkimage: done: $dest"
cat "$dest/kernels"
