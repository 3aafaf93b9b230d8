/* A canned HTTP server for the LLM client's tests.
 *
 * usage: llm_server [-d DIR] [-l LOG] STEP...
 *
 * Listens on 127.0.0.1 only, on an ephemeral port, and prints "port N" on
 * stdout once it is ready. Each connection gets one request and one reply,
 * the next STEP in order:
 *   NAME     DIR/NAME.http: a status line and headers, a blank line, the body
 *            (Content-Length and Connection: close are added; "\n" in the
 *            header part becomes "\r\n")
 *   hang     a 200 with half of its body, then silence until the client goes
 *   big:N    a 200 with a body of N bytes
 *   stream:N the same without Content-Length (the close ends the body)
 *   drop     close the connection without a reply
 * Requests past the last step get "418 script exhausted". Every request is
 * appended to LOG as "=== request K" and its raw bytes. The server exits on
 * SIGTERM, or by itself after 60 s so a crashed test leaves nothing behind. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *dir = ".";
static FILE *log_file;

/* Send all of p, or fail when the client went away. */
static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Read one request (headers and a Content-Length body) and log it. */
static int read_request(int fd, int index)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return -1;
    size_t hdr_end = 0, want = 0;
    int continued = 0;
    for (;;) {
        if (hdr_end && len >= hdr_end + want)
            break;
        if (len == cap) {
            if (cap >= (64u << 20))
                break;
            char *p = realloc(buf, cap * 2 + 1);
            if (!p)
                break;
            buf = p;
            cap *= 2;
        }
        ssize_t k = recv(fd, buf + len, cap - len, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        buf[len] = '\0';
        if (!hdr_end) {
            char *e = strstr(buf, "\r\n\r\n");
            if (!e)
                continue;
            hdr_end = (size_t)(e - buf) + 4;
            for (char *l = buf; l < buf + hdr_end;) {
                if (strncasecmp(l, "content-length:", 15) == 0)
                    want = strtoul(l + 15, NULL, 10);
                if (strncasecmp(l, "expect:", 7) == 0 && !continued) {
                    continued = 1;
                    send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
                }
                char *nl = strstr(l, "\r\n");
                if (!nl)
                    break;
                l = nl + 2;
            }
        }
    }
    if (log_file) {
        fprintf(log_file, "=== request %d\n", index);
        fwrite(buf, 1, len, log_file);
        fputc('\n', log_file);
        fflush(log_file);
    }
    free(buf);
    return hdr_end ? 0 : -1;
}

/* Wait until the client closes the connection (or 30 s pass). */
static void wait_for_close(int fd)
{
    char tmp[256];
    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (int i = 0; i < 300; i++) {
        if (poll(&p, 1, 100) > 0 && recv(fd, tmp, sizeof tmp, 0) <= 0)
            return;
    }
}

/* Send a canned reply from DIR/NAME.http. */
static void reply_file(int fd, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.http", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        static const char nf[] = "HTTP/1.1 599 Missing Canned Reply\r\nContent-Length: 0\r\n"
                                 "Connection: close\r\n\r\n";
        send_all(fd, nf, sizeof nf - 1);
        return;
    }
    static char data[1 << 20];
    size_t n = fread(data, 1, sizeof data - 1, f);
    fclose(f);
    data[n] = '\0';
    char *body = strstr(data, "\n\n");
    size_t hlen = body ? (size_t)(body - data) : n;
    body = body ? body + 2 : data + n;
    size_t blen = n - (size_t)(body - data);
    static char head[1 << 16];
    size_t o = 0;
    for (size_t i = 0; i < hlen && o + 4 < sizeof head; i++) {
        if (data[i] == '\n')
            head[o++] = '\r';
        head[o++] = data[i];
    }
    o += (size_t)snprintf(head + o, sizeof head - o,
                          "\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", blen);
    if (send_all(fd, head, o) == 0)
        send_all(fd, body, blen);
}

/* Send a 200 with an n-byte body, with or without Content-Length. */
static void reply_big(int fd, size_t n, int length)
{
    char head[256];
    int h = length ? snprintf(head, sizeof head,
                              "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              "Content-Length: %zu\r\nConnection: close\r\n\r\n", n)
                   : snprintf(head, sizeof head,
                              "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              "Connection: close\r\n\r\n");
    if (send_all(fd, head, (size_t)h))
        return;
    char chunk[65536];
    memset(chunk, ' ', sizeof chunk);
    while (n > 0) {
        size_t k = n < sizeof chunk ? n : sizeof chunk;
        if (send_all(fd, chunk, k))
            return;
        n -= k;
    }
}

/* Send half a reply and stall. */
static void reply_hang(int fd)
{
    static const char part[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Content-Length: 1000\r\nConnection: close\r\n\r\n{\"choices\": [";
    send_all(fd, part, sizeof part - 1);
    wait_for_close(fd);
}

/* Listen, announce the port, and play the steps in order. */
int main(int argc, char **argv)
{
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (strcmp(argv[i], "-d") == 0)
            dir = argv[i + 1];
        else if (strcmp(argv[i], "-l") == 0)
            log_file = fopen(argv[i + 1], "a");
        else
            break;
    }
    signal(SIGPIPE, SIG_IGN);
    alarm(60);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 8) ||
        getsockname(s, (struct sockaddr *)&a, &al)) {
        perror("llm_server");
        return 1;
    }
    printf("port %d\n", ntohs(a.sin_port));
    fflush(stdout);
    for (int k = 0;; k++) {
        int c = accept(s, NULL, NULL);
        if (c < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        if (read_request(c, k + 1) == 0) {
            const char *step = i + k < argc ? argv[i + k] : NULL;
            if (!step) {
                static const char ex[] = "HTTP/1.1 418 Script Exhausted\r\nContent-Length: 0\r\n"
                                         "Connection: close\r\n\r\n";
                send_all(c, ex, sizeof ex - 1);
            } else if (strcmp(step, "drop") == 0) {
                /* nothing: the close below is the whole answer */
            } else if (strcmp(step, "hang") == 0)
                reply_hang(c);
            else if (strncmp(step, "big:", 4) == 0)
                reply_big(c, strtoul(step + 4, NULL, 10), 1);
            else if (strncmp(step, "stream:", 7) == 0)
                reply_big(c, strtoul(step + 7, NULL, 10), 0);
            else
                reply_file(c, step);
        }
        shutdown(c, SHUT_WR);
        close(c);
    }
}
