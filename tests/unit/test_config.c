/* The waiting deadline as the environment sets it (SHMCOLL_TIMEOUT, base/config.h): by default a
 * wait has none, as the MPI library's waits have none (a rank may legally arrive an hour after
 * the others); a positive number of seconds is one; 0 is none; anything else is refused with a
 * warning and the default taken. Waits compare the value as it is, so "none" must be a value no
 * wait ever passes. */
#include "base/config.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double timeout_for(const char *text) {
    if (text)
        setenv("SHMCOLL_TIMEOUT", text, 1);
    else
        unsetenv("SHMCOLL_TIMEOUT");
    shmcoll_config_reload();
    return shmcoll_config()->timeout;
}

int main(void) {
    double t = timeout_for(NULL);
    CHECK(isinf(t) && t > 0, "default: %g, not unbounded", t);
    t = timeout_for("0");
    CHECK(isinf(t) && t > 0, "0: %g, not unbounded", t);
    t = timeout_for("2.5");
    CHECK(t == 2.5, "2.5: %g", t);
    t = timeout_for("600");
    CHECK(t == 600, "600: %g", t);
    t = timeout_for("-1"); /* refused: the default */
    CHECK(isinf(t) && t > 0, "-1: %g, not the default", t);
    t = timeout_for("soon");
    CHECK(isinf(t) && t > 0, "soon: %g, not the default", t);
    printf("test_config: %ld checks, %ld failures\n", check_total(), check_failures());
    return check_failures() != 0;
}
