#!/bin/sh
# guest-save-target.sh - the guest half of tests/vm/save-target.sh: saves
# the VM kernel's description (ktap --save-target) and copies it to the
# shared directory (/mnt/host) as target.tar.  One TAP-like line, which
# save-target.sh shows (a maintainer's tool, not a test: no plan).

if ktap --save-target /tmp/target 2>/tmp/err &&
	(cd /tmp/target && tar cf /mnt/host/target.tar .) 2>>/tmp/err; then
	echo "ok - ktap --save-target in the guest ($(tr '\n' ' ' </tmp/target/ktap-target))"
else
	echo "not ok - ktap --save-target in the guest"
	sed 's/^/# /' /tmp/err
fi
