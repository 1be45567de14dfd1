/*
 * fuzz_frontend.c - libFuzzer target for passes 1-3 (lexer, preprocessor,
 * parser, -p1 printer, pass 2's resolution and typing, pass 3's lowering
 * and their -p2/-p3 printers).
 *
 * Each input is one script; drv_fuzz_one() (compiler/driver.c) parses it
 * with and without guru mode, runs passes 2 and 3, prints every result to
 * a null stream and frees everything, so ASan/UBSan/LSan see the whole
 * compiler.  Probe points resolve against the fixture tracefs of the
 * source tree (KTAP_FUZZ_SRCDIR, set by the build), so no root is needed.
 * Built and run by `make fuzz` (tests/Makefile.am.inc), never by the
 * normal build.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "driver.h"

#ifndef KTAP_FUZZ_SRCDIR
#define KTAP_FUZZ_SRCDIR "."
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fixture tracefs and tapset, unless the caller chose others. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("KTAP_TRACEFS", KTAP_FUZZ_SRCDIR "/tests/fixtures/tracefs", 0);
	setenv("KTAP_TAPSET", KTAP_FUZZ_SRCDIR "/tapset", 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	drv_fuzz_one(data, size);
	return 0;
}
