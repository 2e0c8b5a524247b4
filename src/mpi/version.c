/* The public version query. */
#include "shmcoll.h"

SHMCOLL_API const char *shmcoll_version(void) {
    return SHMCOLL_VERSION_STRING;
}
