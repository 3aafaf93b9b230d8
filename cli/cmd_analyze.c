/* tritondx analyze: level 3, through the runner in cmd_attribute.c. */
#include "cli.h"

int tdx_cli_an_main(int argc, char **argv, int level);

int tdx_cmd_analyze(int argc, char **argv)
{
    return tdx_cli_an_main(argc, argv, 3);
}
