/* The adaptive non-temporal store policy (YHCCL section 4.2, Algorithm 1) and its knob.
 *
 * The paper's text is the rule followed here: "YHCCL switches from t-copy to nt-copy when
 * W > C and non-temporal flag t == 1". Its Algorithm 1 listing has the two branches the other
 * way round (t-copy under "t == true and W > C"), which contradicts the text, Table 4 and its
 * Figure 8; the listing is taken to be a typo. Here t == 1 is `!dest_reused_soon`.
 *
 * An unknown cache size (0) keeps auto mode temporal: missing a streaming opportunity costs at
 * most the read-for-ownership traffic (about a third of a large copy's bandwidth in the paper's
 * Table 4), while streaming data that is read again soon sends every later read to memory. */
#include "kernels/nt_policy.h"
#include "base/config.h"
#include "base/log.h"

#include <stdatomic.h>
#include <strings.h>

size_t shmcoll_kernel_usable_cache(size_t llc, size_t l2, int ncores_sharing_llc,
                                   int llc_inclusive) {
    if (!llc) return 0;
    if (ncores_sharing_llc > 0 && llc / (size_t)ncores_sharing_llc > SHMCOLL_LLC_PER_CORE_MAX)
        llc = (size_t)ncores_sharing_llc * SHMCOLL_LLC_PER_CORE_MAX;
    if (llc_inclusive || ncores_sharing_llc <= 0) return llc;
    return llc + (size_t)ncores_sharing_llc * l2;
}

int shmcoll_kernel_nt_bandwidth_bound(int streaming_cores, int min_cores) {
    return streaming_cores >= min_cores;
}

int shmcoll_kernel_nt_decide(shmcoll_nt_mode_t mode, size_t working_set, int dest_reused_soon,
                             size_t usable_cache, int bandwidth_bound) {
    switch (mode) {
    case SHMCOLL_NT_ALWAYS:
        return 1;
    case SHMCOLL_NT_NEVER:
        return 0;
    default:
        return bandwidth_bound && !dest_reused_soon && usable_cache && working_set > usable_cache;
    }
}

static shmcoll_nt_mode_t parse_mode(const char *text) {
    if (!text || !*text || !strcasecmp(text, "auto")) return SHMCOLL_NT_AUTO;
    if (!strcasecmp(text, "always")) return SHMCOLL_NT_ALWAYS;
    if (!strcasecmp(text, "never")) return SHMCOLL_NT_NEVER;
    shmcoll_log_warn("SHMCOLL_NT=%s is not auto, always or never; using auto", text);
    return SHMCOLL_NT_AUTO;
}

/* Asked on every copy-out, so the setting is parsed once per value of the knob (the config
 * string only changes when the environment is read again), which also warns once per setting. */
shmcoll_nt_mode_t shmcoll_kernel_nt_mode(void) {
    static _Atomic(const char *) parsed_text;
    static _Atomic int parsed_mode;
    const char *text = shmcoll_config()->nt;
    if (atomic_load_explicit(&parsed_text, memory_order_acquire) != text) {
        atomic_store_explicit(&parsed_mode, parse_mode(text), memory_order_relaxed);
        atomic_store_explicit(&parsed_text, text, memory_order_release);
    }
    return (shmcoll_nt_mode_t)atomic_load_explicit(&parsed_mode, memory_order_relaxed);
}

int shmcoll_kernel_nt_wanted(size_t working_set, int dest_reused_soon, size_t usable_cache,
                             int bandwidth_bound) {
    return shmcoll_kernel_nt_decide(shmcoll_kernel_nt_mode(), working_set, dest_reused_soon,
                                    usable_cache, bandwidth_bound);
}
