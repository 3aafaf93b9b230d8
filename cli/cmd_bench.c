/* tritondx bench: not built yet. */
#include "cli.h"

int tdx_cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    tdx_cli_error("'bench' is not available in this build yet");
    return TDX_EXIT_FAILED;
}
