/*
 * driver.h - the ktap command: options, passes, exit status.
 */
#ifndef KTAP_DRIVER_H
#define KTAP_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/* Run ktap with @argc/@argv; returns the process exit status. */
int drv_main(int argc, char **argv);

struct ktap_session;

/* Pass 5: run the lowered plan (driver_run.c); returns the exit status. */
int drv_pass5(struct ktap_session *s);

/*
 * Fuzzing entry point: parse @data as a script (with and without guru
 * mode), print its tree to nowhere and free everything.  Always returns 0.
 */
int drv_fuzz_one(const uint8_t *data, size_t size);

#endif
