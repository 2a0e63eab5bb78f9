# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Read one kernel's results.tap (run with -v label=LABEL) and print, for
# every failed top-level test, its name and the lines that explain it: its
# failed checks ("# not ok N ...") with up to three diagnostic lines before
# each, or, when it has no failed check (a crash, a timeout, a failed
# setup), the last five lines of its output.  At most 20 lines per test.

function keep(line) { if (n < 20) out[n++] = "      " line }

/^(ok|not ok) [0-9]+ / {
	if ($1 == "not") {
		print "  " label ": " substr($0, index($0, label ": ") + length(label) + 2)
		n = 0
		for (i = 0; i < nb; i++)
			if (body[i] ~ /^# not ok [0-9]+ /) {
				for (j = (i > 3 ? i - 3 : 0); j <= i; j++)
					if (!(j in shown)) { keep(body[j]); shown[j] = 1 }
			}
		if (n == 0)
			for (i = (nb > 5 ? nb - 5 : 0); i < nb; i++)
				keep(body[i])
		for (i = 0; i < n; i++)
			print out[i]
		delete shown
	}
	nb = 0
	next
}
{ body[nb++] = $0 }
