/* tritondx attribute: not built yet. */
#include "cli.h"

int tdx_cmd_attribute(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    tdx_cli_error("'attribute' is not available in this build yet");
    return TDX_EXIT_FAILED;
}
