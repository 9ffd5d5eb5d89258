/* The shepherd, compiled: what it does and why is told in shepherd.py, which holds its
 * protocol (files, codes, config entries) and builds this file (shepherd.build, from
 * setup.py) with Grid Engine's failure codes defined from there. A C program, because it
 * runs once per task and Python's start-up alone cost more than half of a trivial job's
 * CPU. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define JOB_UMASK 022
#define OUTPUT_MODE 0644
#define LINE 8192

/* A NUL-separated file of NAME=value entries, read whole. */
struct entries {
    char **items;
    size_t count;
};

/* Why the job did not start: Grid Engine's code for the step, and the stamped line. */
struct failure {
    int failed;
    char line[LINE];
};

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec / 1e6;
}

/* The local time, then the uid and pid of the process that met the failure. */
static void stamp(struct failure *f, int failed, const char *format, ...)
{
    char when[64];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(when, sizeof when, "%m/%d/%Y %H:%M:%S", &tm);
    int n = snprintf(f->line, sizeof f->line, "%s [%d:%d]: ", when, (int)geteuid(),
                     (int)getpid());
    va_list args;
    va_start(args, format);
    vsnprintf(f->line + n, sizeof f->line - n, format, args);
    va_end(args);
    f->failed = failed;
}

static int read_entries(const char *path, struct entries *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t size = 0, room = 4096;
    char *data = malloc(room + 1);
    for (;;) {
        if (data == NULL) {
            close(fd);
            errno = ENOMEM;
            return -1;
        }
        ssize_t got = read(fd, data + size, room - size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (got == 0)
            break;
        size += got;
        if (size == room)
            data = realloc(data, (room *= 2) + 1);
    }
    close(fd);
    data[size] = '\0';
    out->items = calloc(size / 2 + 2, sizeof *out->items);
    out->count = 0;
    if (out->items == NULL) {
        errno = ENOMEM;
        return -1;
    }
    for (char *entry = data; entry < data + size; entry += strlen(entry) + 1) {
        char *sep = strchr(entry, '=');
        if (sep != NULL && sep != entry)  /* NAME=value with a name; the rest is dropped */
            out->items[out->count++] = entry;
    }
    return 0;
}

/* The value of a config entry, NULL when it is missing. */
static const char *entry(const struct entries *e, const char *name)
{
    size_t len = strlen(name);
    const char *found = NULL;
    for (size_t i = 0; i < e->count; i++)
        if (strncmp(e->items[i], name, len) == 0 && e->items[i][len] == '=')
            found = e->items[i] + len + 1;  /* the last one, as a dict would keep it */
    return found;
}

/* A list of numbers with commas between them; the count, or -1 if not numbers. */
static int numbers(const char *text, long *out, int room)
{
    int n = 0;
    while (text != NULL && *text != '\0') {
        char *end;
        errno = 0;
        long value = strtol(text, &end, 10);
        if (end == text || errno != 0 || (*end != ',' && *end != '\0') || n == room)
            return -1;
        out[n++] = value;
        text = *end == ',' ? end + 1 : end;
    }
    return n;
}

struct config {
    const char *user, *cwd, *stdin_path, *stdout_path, *stderr_path;
    uid_t uid;
    gid_t gid;
    gid_t groups[NGROUPS_MAX];
    int ngroups;
    int merge, tty;
    int fds[3];  /* an interactive task's 0, 1, 2 (-1: a file) */
};

static int read_config(const struct entries *e, struct config *c, const char **missing)
{
    static long groups[NGROUPS_MAX];
    long fds[3], id[2];
    const char *names[] = {"user", "uid", "gid", "groups", "cwd", "stdin", "stdout", "stderr",
                           "merge"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (entry(e, names[i]) == NULL) {
            *missing = names[i];
            return -1;
        }
    *missing = NULL;
    c->user = entry(e, "user");
    c->cwd = entry(e, "cwd");
    c->stdin_path = entry(e, "stdin");
    c->stdout_path = entry(e, "stdout");
    c->stderr_path = entry(e, "stderr");
    c->merge = *entry(e, "merge") != '\0';
    c->tty = entry(e, "tty") != NULL && *entry(e, "tty") != '\0';
    /* -1 would leave an id unchanged: root's, for an execd running as root */
    if (numbers(entry(e, "uid"), &id[0], 1) != 1 || numbers(entry(e, "gid"), &id[1], 1) != 1
        || id[0] < 0 || id[1] < 0)
        return -1;
    c->uid = id[0];
    c->gid = id[1];
    c->ngroups = numbers(entry(e, "groups"), groups, sizeof groups / sizeof *groups);
    if (c->ngroups < 0)
        return -1;
    for (int i = 0; i < c->ngroups; i++)
        c->groups[i] = groups[i];
    int nfds = numbers(entry(e, "fds"), fds, 3);
    if (nfds != 0 && nfds != 3)
        return -1;
    for (int i = 0; i < 3; i++)
        c->fds[i] = nfds ? (int)fds[i] : -1;
    return 0;
}

/* A string as JSON: valid UTF-8 as it is, control characters, quotes and backslashes
 * escaped, and a byte that is no UTF-8 as the replacement character. */
static void json_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        int len = *p < 0x80 ? 1 : *p < 0xC2 ? 0 : *p < 0xE0 ? 2 : *p < 0xF0 ? 3
                : *p < 0xF5 ? 4 : 0;
        for (int i = 1; i < len; i++)
            if ((p[i] & 0xC0) != 0x80)
                len = 0;
        /* no overlong forms, no surrogates, nothing past U+10FFFF */
        if ((*p == 0xE0 && p[1] < 0xA0) || (*p == 0xED && p[1] >= 0xA0)
            || (*p == 0xF0 && p[1] < 0x90) || (*p == 0xF4 && p[1] >= 0x90))
            len = 0;
        if (len == 0) {
            fputs("\\ufffd", out);
            p++;
        } else if (len > 1) {
            fwrite(p, 1, len, out);
            p += len;
        } else {
            if (*p == '"' || *p == '\\')
                fprintf(out, "\\%c", *p);
            else if (*p < 0x20 || *p == 0x7F)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
            p++;
        }
    }
    fputc('"', out);
}

static double seconds(struct timeval tv)
{
    return tv.tv_sec + tv.tv_usec / 1e6;
}

/* Written aside and renamed, so that a reader sees the whole record or none. Exactly one
 * of failure, job (it runs: job.json) and ru (it ended: exit.json) is given. */
static void write_record(const char *dir, const char *name, const struct failure *failure,
                         const pid_t *job, double start, double end, int status,
                         const struct rusage *ru)
{
    char path[4096], scratch[4100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(scratch, sizeof scratch, "%s.new", path);
    FILE *out = fopen(scratch, "we");
    if (out == NULL)
        return;
    if (failure != NULL) {
        fputs("{\"error\": ", out);
        json_string(out, failure->line);
        fprintf(out, ", \"failed\": %d}", failure->failed);
    } else if (job != NULL) {
        fprintf(out, "{\"shepherd_pid\": %d, \"job_pid\": %d, \"start_time\": %.6f}",
                (int)getpid(), (int)*job, start);
    } else {
        fprintf(out, "{\"status\": %d, \"start_time\": %.6f, \"end_time\": %.6f, \"usage\": "
                "{\"utime\": %.6f, \"stime\": %.6f, \"maxrss\": %ld, \"minflt\": %ld, "
                "\"majflt\": %ld, \"inblock\": %ld, \"oublock\": %ld, \"nvcsw\": %ld, "
                "\"nivcsw\": %ld}}", status, start, end, seconds(ru->ru_utime),
                seconds(ru->ru_stime), ru->ru_maxrss, ru->ru_minflt, ru->ru_majflt,
                ru->ru_inblock, ru->ru_oublock, ru->ru_nvcsw, ru->ru_nivcsw);
    }
    if (fclose(out) == 0)
        rename(scratch, path);
}

/* In the job's process before the exec: become the owner, then check the shell, enter
 * the working directory and open the standard streams as the owner, in the order of
 * Grid Engine's shepherd so that a failure gets its code. 0, or -1 with f filled in. */
static int enter_job(char *const command[], const struct config *c, struct failure *f)
{
    if (geteuid() == 0 && (setgroups(c->ngroups, c->groups) < 0
                           || setresgid(c->gid, c->gid, c->gid) < 0
                           || setresuid(c->uid, c->uid, c->uid) < 0)) {
        stamp(f, FAILED_BEFORE_JOB, "error: can't switch to user '%s' (uid %d, gid %d): %s",
              c->user, (int)c->uid, (int)c->gid, strerror(errno));
        return -1;
    }
    umask(JOB_UMASK);
    /* A bare name is for the exec to find on the job's PATH. */
    if (strchr(command[0], '/') != NULL && access(command[0], X_OK) < 0) {
        stamp(f, FAILED_NO_SHELL, "unable to find shell \"%s\"", command[0]);
        return -1;
    }
    if (chdir(c->cwd) < 0) {
        stamp(f, FAILED_NO_CWD, "error: can't chdir to %s: %s", c->cwd, strerror(errno));
        return -1;
    }
    if (c->tty && ioctl(c->fds[0], TIOCSCTTY, 0) < 0) {
        stamp(f, FAILED_BEFORE_JOB,
              "error: can't make the pseudo-terminal the job's terminal: %s", strerror(errno));
        return -1;
    }
    int streams[3];
    streams[0] = c->fds[0] >= 0 ? c->fds[0] : open(c->stdin_path, O_RDONLY | O_CLOEXEC);
    if (streams[0] < 0) {
        stamp(f, FAILED_OPEN_OUTPUT, "error: can't open %s as dummy input file", c->stdin_path);
        return -1;
    }
    const char *outputs[2] = {c->stdout_path, c->stderr_path};
    for (int i = 1; i <= (c->merge ? 1 : 2); i++) {
        streams[i] = c->fds[i] >= 0 ? c->fds[i]
                   : open(outputs[i - 1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                          OUTPUT_MODE);
        if (streams[i] < 0) {
            stamp(f, FAILED_OPEN_OUTPUT, "error: can't open output file \"%s\": %s",
                  outputs[i - 1], strerror(errno));
            return -1;
        }
    }
    if (c->merge)
        streams[2] = streams[1];
    for (int target = 0; target < 3; target++)  /* none below 3: the shepherd's 0-2 are open */
        if (dup2(streams[target], target) < 0) {
            stamp(f, FAILED_BEFORE_JOB, "error: can't start job: %s", strerror(errno));
            return -1;
        }
    for (int i = 0; i < 3; i++)
        if (c->fds[i] > 2)
            close(c->fds[i]);
    return 0;
}

/* fork and exec, so that the job finds its program on its own PATH and gets default
 * signal dispositions. A failed start comes back as "CODE line" through a close-on-exec
 * pipe, which an exec that worked closes unread. The job's pid, or -1 with f filled in. */
static pid_t start_job(char *const command[], char *const env[], const struct config *c,
                       struct failure *f)
{
    int errors[2];
    if (pipe2(errors, O_CLOEXEC) < 0) {
        stamp(f, FAILED_BEFORE_JOB, "error: can't start job: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    int fork_error = errno;
    if (pid == 0) {
        struct failure mine;
        close(errors[0]);
        setsid();
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        if (enter_job(command, c, &mine) == 0) {
            execvpe(command[0], command, env);
            stamp(&mine, FAILED_BEFORE_JOB, "error: can't start job: %s: %s", command[0],
                  strerror(errno));
        }
        char message[LINE + 16];
        int n = snprintf(message, sizeof message, "%d %s", mine.failed, mine.line);
        (void)!write(errors[1], message, n < (int)sizeof message ? n : (int)sizeof message - 1);
        _exit(127);
    }
    close(errors[1]);
    /* The job alone holds its ends of an interactive task's streams: their end of file
     * (or a pseudo-terminal's hang-up) reaches execd when the job's processes are gone. */
    for (int i = 0; i < 3; i++)
        if (c->fds[i] >= 0)
            close(c->fds[i]);
    if (pid < 0) {
        close(errors[0]);
        stamp(f, FAILED_BEFORE_JOB, "error: can't start job: %s", strerror(fork_error));
        return -1;
    }
    char message[LINE + 16];
    size_t size = 0;
    ssize_t got;
    while (size < sizeof message - 1
           && ((got = read(errors[0], message + size, sizeof message - 1 - size)) > 0
               || (got < 0 && errno == EINTR)))
        size += got > 0 ? got : 0;
    close(errors[0]);
    if (size == 0)
        return pid;
    message[size] = '\0';
    waitpid(pid, NULL, 0);
    char *text = strchr(message, ' ');
    f->failed = atoi(message);
    snprintf(f->line, sizeof f->line, "%s", text ? text + 1 : "");
    return -1;
}

/* The job's environment and config from the task's directory; -1 with f filled in. */
static int prepare(const char *task_dir, struct entries *env, struct config *config,
                   struct failure *f)
{
    static struct entries settings;
    char path[4096];
    const char *missing = NULL;
    snprintf(path, sizeof path, "%s/environment", task_dir);
    if (read_entries(path, env) == 0) {
        snprintf(path, sizeof path, "%s/config", task_dir);
        if (read_entries(path, &settings) == 0) {
            if (read_config(&settings, config, &missing) == 0)
                return 0;
            stamp(f, FAILED_BEFORE_JOB, "error: can't start job: %s: %s%s", path,
                  missing ? "no " : "an entry is not a valid number", missing ? missing : "");
            return -1;
        }
    }
    stamp(f, FAILED_BEFORE_JOB, "error: can't start job: %s: %s", path, strerror(errno));
    return -1;
}

int main(int argc, char *argv[])
{
    if (argc < 6 || strcmp(argv[4], "--") != 0) {
        fputs("usage: gridd-shepherd TASK_DIR LOCK_FD NOTIFY_FD -- COMMAND...\n", stderr);
        return 2;
    }
    const char *task_dir = argv[1];
    int lock_fd = atoi(argv[2]), notify_fd = atoi(argv[3]);
    char **command = argv + 5;
    /* Neither descriptor may reach the job: the lock must end with the shepherd, and the
     * end of file that execd waits for must come when the shepherd closes its end. */
    fcntl(lock_fd, F_SETFD, FD_CLOEXEC);
    fcntl(notify_fd, F_SETFD, FD_CLOEXEC);
    double start = now();
    struct failure failure;
    struct entries env;
    static struct config config;  /* static: its groups are too many for a stack */
    pid_t pid = -1;
    if (prepare(task_dir, &env, &config, &failure) == 0)
        pid = start_job(command, env.items, &config, &failure);
    if (pid < 0) {
        close(notify_fd);
        write_record(task_dir, "exit.json", &failure, NULL, 0, 0, 0, NULL);
        return 1;
    }
    write_record(task_dir, "job.json", NULL, &pid, start, 0, 0, NULL);
    close(notify_fd);
    siginfo_t info;
    while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    /* Whatever the job left in its group is killed before it is reaped, while its
     * unreaped pid keeps the group id from being reused. */
    kill(-pid, SIGKILL);
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    write_record(task_dir, "exit.json", NULL, NULL, start, now(), status, &ru);
    return 0;
}
