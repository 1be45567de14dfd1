/*
 * fuzz_frontend.c - libFuzzer target for pass 1 (lexer, preprocessor,
 * parser, -p1 printer).
 *
 * Each input is one script; drv_fuzz_one() (compiler/driver.c) parses it
 * with and without guru mode, prints the tree to a null stream and frees
 * everything, so ASan/UBSan/LSan see the whole front end.  Built and run by
 * `make fuzz` (tests/Makefile.am.inc), never by the normal build.
 */
#include <stddef.h>
#include <stdint.h>

#include "driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	drv_fuzz_one(data, size);
	return 0;
}
