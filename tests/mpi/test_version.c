/* shmcoll_version() of the loaded library equals the project version given as argv[1]. Looked up
 * with dlsym, so the same program works linked with libshmcoll or preloaded. */
#include "mpi_check.h"

#include <dlfcn.h>
#include <string.h>

int main(int argc, char **argv) {
    check_init(&argc, &argv);
    const char *(*version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "shmcoll_version");
    CHECK(version != NULL, "shmcoll_version is not exported");
    if (version && argc > 1)
        CHECK(!strcmp(version(), argv[1]), "shmcoll_version() is %s, the project is %s", version(),
              argv[1]);
    CHECK(argc > 1, "usage: %s <expected version>", argv[0]);
    return check_finish("test_version");
}
