#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Host unit test of libsoftacc's DUS header check (sacc_check_header, which
# sacc_open applies before it uses a field): a well-formed header passes,
# and each header that would make the library divide by zero or touch
# memory outside the region gives -EPROTO.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/ktap.sh"

lib=${BIN:-$here/../../build/userspace/bin}/../lib/libsoftacc.a
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
ktap_print_header
[ -f "$lib" ] || ktap_exit_fail_msg "no $lib (make -C userspace tools)"
cat >"$root/hdr.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <mw57/libsoftacc.h>

#define DUS 65536u
static const struct softacc_dus_header good = {
	.magic = SOFTACC_MAGIC, .version = SOFTACC_VERSION,
	.sq_depth = 64, .cq_depth = 64,
	.sqe_size = sizeof(struct softacc_sqe), .cqe_size = sizeof(struct softacc_cqe),
	.sq_off = 64, .cq_off = 8192, .data_off = 16384, .data_size = 32768,
};
#define CASE(name, field, value, size) do {				\
	struct softacc_dus_header h = good;				\
	h.field = value;						\
	printf("%s %d %d\n", name, sacc_check_header(&h, size),	\
	       strcmp(name, "well-formed") ? -EPROTO : 0);		\
} while (0)

int main(void)
{
	CASE("well-formed", magic, SOFTACC_MAGIC, DUS);
	CASE("region smaller than the header", magic, SOFTACC_MAGIC, sizeof(good) - 1);
	CASE("bad magic", magic, 0x12345678, DUS);
	CASE("bad version", version, SOFTACC_VERSION + 1, DUS);
	CASE("sq_depth 0", sq_depth, 0, DUS);
	CASE("cq_depth 0", cq_depth, 0, DUS);
	CASE("sqe_size smaller than an SQE", sqe_size, sizeof(struct softacc_sqe) - 1, DUS);
	CASE("cqe_size not a CQE", cqe_size, 2 * sizeof(struct softacc_cqe), DUS);
	CASE("SQ ring past the region", sq_depth, 1024, DUS);
	CASE("CQ ring past the region", cq_off, DUS - 64, DUS);
	CASE("CQ offset past the region", cq_off, 0xfffffff8u, DUS);
	CASE("SQ ring size overflowing 32 bits", sq_depth, 0x80000000u, DUS);
	CASE("data area past the region", data_size, DUS, DUS);
	CASE("data offset + size overflowing 32 bits", data_off, 0xffff0000u, DUS);
	CASE("misaligned CQ ring", cq_off, 8196, DUS);
	CASE("misaligned SQ ring", sq_off, 68, DUS);
	return 0;
}
C
inc=$here/../include
gcc -Wall -Werror -I"$inc" -I"$here/../../include/uapi" -o "$root/hdr" "$root/hdr.c" "$lib" 2>"$root/cc.log" ||
	ktap_exit_fail_msg "cannot build: $(cat "$root/cc.log")"
"$root/hdr" >"$root/out"
ktap_set_plan "$(wc -l <"$root/out")"
while read -r line; do
	want=${line##* } line=${line% *}
	name=${line% *} rc=${line##* }
	ktap_test_result "sacc_check_header: $name: $rc (want $want)" test "$rc" = "$want"
done <"$root/out"
ktap_finished
