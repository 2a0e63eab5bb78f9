#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# style.sh CACHEDIR
#
# checkpatch.pl --strict --no-tree on every module and compat source, on
# the companion patch series and on the debug kernel's fixes, taken from
# the packaged linux-source-6.12 tarball (Debian's header packages do not
# ship it) and cached; shellcheck on every shell script.
set -euo pipefail
cache=$1
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || { echo "style: $tarball missing (make deps)"; exit 1; }

cp_dir=$cache/checkpatch-$(stat -c %s-%Y "$tarball")
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cp_dir"
	tar -xJf "$tarball" -C "$cp_dir" --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch
fi

cd "$top"
rc=0
mapfile -t csrc < <(git ls-files 'modules/*.[ch]' 'kbuild/*.h' 'include/uapi/*.h')
echo "style: checkpatch --strict on ${#csrc[@]} files"
# CAMELCASE: USB descriptor fields (bRequestType, wLength) are spelled so by
# the USB specification and <linux/usb/ch9.h>.
"$cp_dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,CAMELCASE \
	-f "${csrc[@]}" || rc=1

# The series by absolute path: checkpatch reads a path that git tracks as
# a source file (as with -f), not as a patch.
mapfile -t series < <(git ls-files 'patches/*.patch' 'kbuild/debug/*.patch')
echo "style: checkpatch --strict on ${#series[@]} kernel patches"
"$cp_dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES "${series[@]/#/$top/}" || rc=1

mapfile -t scripts < <(git ls-files | while read -r f; do
	case $f in *.sh | vm/guest/* | .ci/run) echo "$f" ;; esac
done)
echo "style: shellcheck on ${#scripts[@]} scripts"
shellcheck -x -P SCRIPTDIR "${scripts[@]}" || rc=1
[ $rc -eq 0 ] && echo "style: clean"
exit $rc
