/* A misbehaving child for the proc tests: one mode per way a child can go
 * wrong (or right). Usage: tdx_child MODE [ARGS...]. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

// Write n bytes of filler to fd in big chunks.
static int flood(int fd, unsigned long long n)
{
    static char chunk[1 << 16];
    memset(chunk, 'x', sizeof chunk);
    while (n) {
        size_t k = n < sizeof chunk ? (size_t)n : sizeof chunk;
        ssize_t w = write(fd, chunk, k);
        if (w <= 0)
            return 1;
        n -= (unsigned long long)w;
    }
    return 0;
}

// Sleep until killed.
static void forever(void)
{
    for (;;)
        pause();
}

// A leader and a grandchild that ignores SIGTERM; prints the grandchild pid.
static int hang_tree(int leader_ignores)
{
    pid_t g = fork();
    if (g == 0) {
        signal(SIGTERM, SIG_IGN);
        forever();
    }
    if (leader_ignores)
        signal(SIGTERM, SIG_IGN);
    printf("%d\n", (int)g);
    fflush(stdout);
    forever();
    return 0;
}

// A grandchild that leaves the process group, keeps stdout open and
// outlives the leader; prints its pid.
static int escape(void)
{
    pid_t g = fork();
    if (g == 0) {
        setsid();
        sleep(60);
        _exit(0);
    }
    printf("%d\n", (int)g);
    fflush(stdout);
    return 0;
}

// Can this process listen on loopback? (not in a fresh network namespace)
static int net(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
        puts("net down");
        return 0;
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = bind(s, (struct sockaddr *)&a, sizeof a) == 0 && listen(s, 1) == 0;
    socklen_t len = sizeof a;
    int c = -1;
    if (ok && getsockname(s, (struct sockaddr *)&a, &len) == 0) {
        c = socket(AF_INET, SOCK_STREAM, 0);
        ok = c >= 0 && connect(c, (struct sockaddr *)&a, sizeof a) == 0;
    } else {
        ok = 0;
    }
    puts(ok ? "net up" : "net down");
    return 0;
}

// Print the soft limits the child got.
static int limits(void)
{
    static const struct {
        int res;
        const char *name;
    } l[] = {{RLIMIT_CORE, "core"},
             {RLIMIT_AS, "as"},
             {RLIMIT_CPU, "cpu"},
             {RLIMIT_NOFILE, "nofile"},
             {RLIMIT_FSIZE, "fsize"}};
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++) {
        struct rlimit rl;
        getrlimit(l[i].res, &rl);
        if (rl.rlim_cur == RLIM_INFINITY)
            printf("%s=inf\n", l[i].name);
        else
            printf("%s=%llu\n", l[i].name, (unsigned long long)rl.rlim_cur);
    }
    return 0;
}

// Count open descriptors other than 0, 1, 2 (and the directory's own).
static int fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 2;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d))
            n++;
    closedir(d);
    printf("%d\n", n);
    return 0;
}

// Leave a mess in the working directory: files, a deep tree, an unreadable
// directory, a symlink pointing out (which removal must not follow).
static int mess(const char *outside)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return 2;
    printf("%s\n", cwd);
    FILE *f = fopen("a.txt", "w");
    if (!f)
        return 3;
    fputs("hello\n", f);
    fclose(f);
    for (int i = 0; i < 20; i++) {
        if (mkdir("d", 0700) != 0 || chdir("d") != 0)
            return 4;
        f = fopen("f", "w");
        if (f)
            fclose(f);
    }
    if (chdir(cwd) != 0 || mkdir("locked", 0700) != 0)
        return 5;
    f = fopen("locked/x", "w");
    if (f)
        fclose(f);
    chmod("locked", 0);
    if (outside && symlink(outside, "link") != 0)
        return 6;
    const char *t = getenv("TMPDIR");
    printf("%s\n", t ? t : "(unset)");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 64;
    const char *m = argv[1];
    unsigned long long n = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
    if (!strcmp(m, "hello")) {
        printf("hello out\n");
        fprintf(stderr, "hello err\n");
        return 0;
    }
    if (!strcmp(m, "args")) {
        for (int i = 2; i < argc; i++)
            printf("%s\n", argv[i]);
        return 0;
    }
    if (!strcmp(m, "exit")) {
        fprintf(stderr, "first line\nsecond: %s\n\n", argc > 3 ? argv[3] : "bye");
        return (int)n;
    }
    if (!strcmp(m, "segv")) {
        raise(SIGSEGV);
        return 1;
    }
    if (!strcmp(m, "hang"))
        forever();
    if (!strcmp(m, "hang-tree"))
        return hang_tree(0);
    if (!strcmp(m, "hang-tree-stubborn"))
        return hang_tree(1);
    if (!strcmp(m, "escape"))
        return escape();
    if (!strcmp(m, "flood-out"))
        return flood(1, n);
    if (!strcmp(m, "flood-err"))
        return flood(2, n);
    if (!strcmp(m, "garbage")) {
        fputs("\x01\x02 not json {{{ at all\n", stdout);
        return 0;
    }
    if (!strcmp(m, "cat")) {
        char buf[4096];
        ssize_t r;
        unsigned long long t = 0;
        while ((r = read(0, buf, sizeof buf)) > 0) {
            t += (unsigned long long)r;
            if (write(1, buf, (size_t)r) != r)
                return 1;
        }
        fprintf(stderr, "%llu\n", t);
        return 0;
    }
    if (!strcmp(m, "env")) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            printf("%s=%s\n", argv[i], v ? v : "(unset)");
        }
        return 0;
    }
    if (!strcmp(m, "pwd")) {
        char cwd[4096];
        puts(getcwd(cwd, sizeof cwd) ? cwd : "?");
        return 0;
    }
    if (!strcmp(m, "alloc")) {
        /* n MiB, touched; 42 when the allocator says no */
        size_t bytes = (size_t)n << 20;
        /* volatile: a compiler may otherwise drop the malloc/free pair */
        char *volatile p = malloc(bytes);
        if (!p)
            return 42;
        for (size_t i = 0; i < bytes; i += 4096)
            p[i] = 1;
        free(p);
        return 0;
    }
    if (!strcmp(m, "write-file")) {
        int fd = open(argc > 3 ? argv[3] : "big.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            return 2;
        int rc = flood(fd, n);
        close(fd);
        return rc ? 3 : 0;
    }
    if (!strcmp(m, "spin")) {
        for (volatile unsigned long i = 0;; i++)
            ;
    }
    if (!strcmp(m, "limits"))
        return limits();
    if (!strcmp(m, "fds"))
        return fds();
    if (!strcmp(m, "net"))
        return net();
    if (!strcmp(m, "mess"))
        return mess(argc > 2 ? argv[2] : NULL);
    if (!strcmp(m, "close-and-hang")) {
        close(1);
        close(2);
        forever();
    }
    return 64;
}
