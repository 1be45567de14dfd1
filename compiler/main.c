/*
 * main.c - the ktap program: everything is in the driver.
 */
#include "driver.h"

int main(int argc, char **argv)
{
	return drv_main(argc, argv);
}
