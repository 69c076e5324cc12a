// SPDX-License-Identifier: GPL-2.0
/*
 * qexit - end the QEMU guest with a status the host can read.
 *
 * QEMU's isa-debug-exit device (iobase 0xf4) exits with (value << 1) | 1.
 * The lab writes 0x10 when the guest finished its job (QEMU rc 33): the
 * verdict itself travels as KTAP on the second serial port, so that a
 * guest which dies early can never look like a pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long code = argc > 1 ? strtoul(argv[1], NULL, 0) : 0x10;

	sync();
	if (ioperm(0xf4, 4, 1)) {
		perror("qexit: ioperm(0xf4)");
		return 1;
	}
	outl(code, 0xf4);
	fprintf(stderr, "qexit: isa-debug-exit did not end the guest\n");
	return 1;
}
