/* A few of Grid Engine's test_drmaa cases written in C against gridd's drmaa.h, run in a
 * bare environment by test_conformance.py: a C program needs no venv on its PATH.
 * Usage: conformance; prints "ok ..." per check, exits 0 when all held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drmaa.h"

static char diag[DRMAA_ERROR_STRING_BUFFER];
static int failures;

static void check(int ok, const char *what, int rc)
{
    printf("%s %s (rc %d%s%s)\n", ok ? "ok  " : "FAIL", what, rc, *diag ? ": " : "", diag);
    if (!ok)
        failures++;
    diag[0] = '\0';
}

static drmaa_job_template_t *job(const char *command, const char *arg, int hold)
{
    drmaa_job_template_t *jt = NULL;
    const char *argv[] = {arg, NULL};
    check(drmaa_allocate_job_template(&jt, diag, sizeof diag) == 0, "allocate template", 0);
    drmaa_set_attribute(jt, DRMAA_REMOTE_COMMAND, command, diag, sizeof diag);
    drmaa_set_attribute(jt, DRMAA_WD, DRMAA_PLACEHOLDER_HD, diag, sizeof diag);
    drmaa_set_attribute(jt, DRMAA_JOIN_FILES, "y", diag, sizeof diag);
    drmaa_set_attribute(jt, DRMAA_OUTPUT_PATH, ":/dev/null", diag, sizeof diag);
    if (hold)
        drmaa_set_attribute(jt, DRMAA_JS_STATE, DRMAA_SUBMISSION_STATE_HOLD, diag, sizeof diag);
    check(drmaa_set_vector_attribute(jt, DRMAA_V_ARGV, argv, diag, sizeof diag) == 0,
          "set argv", 0);
    return jt;
}

static void init_exit(void)
{
    int rc = drmaa_exit(diag, sizeof diag);
    check(rc == DRMAA_ERRNO_NO_ACTIVE_SESSION, "exit without a session", rc);
    rc = drmaa_init(NULL, diag, sizeof diag);
    check(rc == DRMAA_ERRNO_SUCCESS, "init", rc);
    rc = drmaa_init(NULL, diag, sizeof diag);
    check(rc == DRMAA_ERRNO_ALREADY_ACTIVE_SESSION, "second init", rc);
}

static void names(void)
{
    drmaa_attr_names_t *names = NULL;
    char name[DRMAA_ATTR_BUFFER];
    int count = 0, seen = 0, rc = drmaa_get_attribute_names(&names, diag, sizeof diag);
    check(rc == 0, "get_attribute_names", rc);
    drmaa_get_num_attr_names(names, &count);
    while ((rc = drmaa_get_next_attr_name(names, name, sizeof name)) == DRMAA_ERRNO_SUCCESS)
        seen += strcmp(name, DRMAA_REMOTE_COMMAND) == 0 ? 1000 : 1;
    check(rc == DRMAA_ERRNO_NO_MORE_ELEMENTS, "names end with NO_MORE_ELEMENTS", rc);
    check(seen > 1000 && count == seen - 999, "count matches, drmaa_remote_command is one",
          count);
    drmaa_release_attr_names(names);
}

static void submit_wait(void)
{
    char id[DRMAA_JOBNAME_BUFFER], out[DRMAA_JOBNAME_BUFFER];
    drmaa_attr_values_t *rusage = NULL;
    int stat = 0, exited = 0, status = -1;
    drmaa_job_template_t *jt = job("/bin/sh", "exit 7", 0);
    const char *argv[] = {"-c", "exit 7", NULL};
    drmaa_set_vector_attribute(jt, DRMAA_V_ARGV, argv, diag, sizeof diag);
    int rc = drmaa_run_job(id, sizeof id, jt, diag, sizeof diag);
    check(rc == 0, "run_job", rc);
    rc = drmaa_wait(id, out, sizeof out, &stat, DRMAA_TIMEOUT_WAIT_FOREVER, &rusage, diag,
                    sizeof diag);
    check(rc == 0 && strcmp(id, out) == 0 && rusage != NULL, "wait with rusage", rc);
    drmaa_release_attr_values(rusage);
    drmaa_wifexited(&exited, stat, diag, sizeof diag);
    drmaa_wexitstatus(&status, stat, diag, sizeof diag);
    check(exited && status == 7, "exit status 7", status);
    drmaa_delete_job_template(jt, diag, sizeof diag);
}

static void bulk(void)
{
    drmaa_job_ids_t *ids = NULL;
    char id[DRMAA_JOBNAME_BUFFER];
    int count = 0, n = 0, rc;
    drmaa_job_template_t *jt = job("/bin/true", "x", 0);
    rc = drmaa_run_bulk_jobs(&ids, jt, 1, 6, 2, diag, sizeof diag);
    check(rc == 0, "run_bulk_jobs 1-6:2", rc);
    drmaa_get_num_job_ids(ids, &count);
    while (drmaa_get_next_job_id(ids, id, sizeof id) == DRMAA_ERRNO_SUCCESS)
        n++;
    check(count == 3 && n == 3, "three task ids", n);
    drmaa_release_job_ids(ids);
    const char *all[] = {DRMAA_JOB_IDS_SESSION_ALL, NULL};
    rc = drmaa_synchronize(all, DRMAA_TIMEOUT_WAIT_FOREVER, 1, diag, sizeof diag);
    check(rc == 0, "synchronize all, dispose", rc);
    drmaa_delete_job_template(jt, diag, sizeof diag);
}

static void ps_control(void)
{
    char id[DRMAA_JOBNAME_BUFFER];
    int state = 0, stat = 0, aborted = 0;
    drmaa_job_template_t *jt = job("/bin/sleep", "30", 1);
    int rc = drmaa_run_job(id, sizeof id, jt, diag, sizeof diag);
    check(rc == 0, "run_job held", rc);
    rc = drmaa_job_ps(id, &state, diag, sizeof diag);
    check(rc == 0 && (state == DRMAA_PS_USER_ON_HOLD || state == DRMAA_PS_USER_SYSTEM_ON_HOLD),
          "job_ps: on hold", state);
    rc = drmaa_control(id, DRMAA_CONTROL_TERMINATE, diag, sizeof diag);
    check(rc == 0, "terminate", rc);
    rc = drmaa_wait(id, NULL, 0, &stat, DRMAA_TIMEOUT_WAIT_FOREVER, NULL, diag, sizeof diag);
    drmaa_wifaborted(&aborted, stat, diag, sizeof diag);
    check(rc == 0 && aborted, "wait: aborted, never ran", rc);
    rc = drmaa_control("abc", DRMAA_CONTROL_TERMINATE, diag, sizeof diag);
    check(rc == DRMAA_ERRNO_INVALID_ARGUMENT, "control of a malformed id", rc);
    drmaa_delete_job_template(jt, diag, sizeof diag);
}

int main(void)
{
    char system[DRMAA_DRM_SYSTEM_BUFFER];
    check(strcmp(drmaa_strerror(DRMAA_ERRNO_INVALID_JOB), "") != 0, "strerror", 0);
    check(drmaa_get_DRM_system(system, sizeof system, diag, sizeof diag) == 0
          && strncmp(system, "SGE", 3) == 0, system, 0);
    init_exit();
    names();
    submit_wait();
    bulk();
    ps_control();
    int rc = drmaa_exit(diag, sizeof diag);
    check(rc == 0, "exit", rc);
    printf("%s\n", failures ? "failed" : "passed");
    return failures ? 1 : 0;
}
