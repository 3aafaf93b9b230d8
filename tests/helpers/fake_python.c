/* A stand-in for `python3 -m tritondx_harness VERB --task F ...` in the hx
 * tests: the verb picks a behaviour, good or bad. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Print s as a JSON string (the tests only pass plain ASCII).
static void jstr(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[1], "-m") || strcmp(argv[2], "tritondx_harness")) {
        fprintf(stderr, "usage: fake_python -m tritondx_harness VERB ...\n");
        return 2;
    }
    const char *verb = argv[3];
    if (!strcmp(verb, "echo")) {
        /* some chatter first: the reply is the last line */
        printf("compiling...\n\n");
        printf("{\"ok\": true, \"verb\": \"echo\", \"protocol\": 1, \"argv\": [");
        for (int i = 1; i < argc; i++) {
            if (i > 1)
                putchar(',');
            jstr(argv[i]);
        }
        printf("], \"pythonpath\": ");
        const char *pp = getenv("PYTHONPATH");
        jstr(pp ? pp : "");
        const char *extra = getenv("TDX_FAKE_EXTRA");
        printf(", \"extra\": ");
        jstr(extra ? extra : "");
        printf("}\n");
        return 0;
    }
    if (!strcmp(verb, "pretty")) {
        printf("{\n  \"ok\": true,\n  \"verb\": \"pretty\",\n  \"protocol\": 1,\n"
               "  \"numbers\": [1, 2, 3]\n}\n");
        return 0;
    }
    if (!strcmp(verb, "error")) {
        printf("{\"ok\": false, \"verb\": \"error\", \"protocol\": 1, "
               "\"error\": \"kernel failed to compile\\nsecond line\"}\n");
        fprintf(stderr, "Traceback (most recent call last):\nRuntimeError: boom\n");
        return 1;
    }
    if (!strcmp(verb, "segv")) {
        printf("{\"partial\": ");
        fflush(stdout);
        raise(SIGSEGV);
    }
    if (!strcmp(verb, "hang"))
        for (;;)
            pause();
    if (!strcmp(verb, "exit3")) {
        fprintf(stderr, "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                        "ValueError: bad task file\n");
        return 3;
    }
    if (!strcmp(verb, "flood")) {
        static char chunk[65536];
        memset(chunk, '[', sizeof chunk);
        for (int i = 0; i < 256; i++) /* 16 MiB */
            if (fwrite(chunk, 1, sizeof chunk, stdout) != sizeof chunk)
                return 1;
        return 0;
    }
    if (!strcmp(verb, "flood-forever")) {
        static char chunk[65536];
        memset(chunk, ']', sizeof chunk);
        for (;;)
            if (fwrite(chunk, 1, sizeof chunk, stdout) != sizeof chunk)
                return 1;
    }
    if (!strcmp(verb, "garbage")) {
        printf("Segmentation fault? no: this line is plain text and certainly not a JSON "
               "object at all, even though it is long\n");
        return 0;
    }
    if (!strcmp(verb, "array")) {
        printf("[1, 2, 3]\n");
        return 0;
    }
    if (!strcmp(verb, "protocol2")) {
        printf("{\"ok\": true, \"verb\": \"protocol2\", \"protocol\": 2}\n");
        return 0;
    }
    if (!strcmp(verb, "noverb")) {
        printf("{\"ok\": true, \"protocol\": 1}\n");
        return 0;
    }
    if (!strcmp(verb, "nook")) {
        printf("{\"verb\": \"nook\", \"protocol\": 1}\n");
        return 0;
    }
    if (!strcmp(verb, "okbutexit")) {
        printf("{\"ok\": true, \"verb\": \"okbutexit\", \"protocol\": 1}\n");
        fprintf(stderr, "warning: leaked something\nfatal: CUDA error: an illegal memory access\n");
        return 5;
    }
    fprintf(stderr, "unknown verb %s\n", verb);
    return 2;
}
