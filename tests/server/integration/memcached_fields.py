"""The fields memcached 1.6.18 shows in `stats`, `stats settings`, `stats
items`, `stats slabs` and `stats conns`, in its order: the reference the
field-set tests (test_stats.py) hold gpuhash-server and memcached itself to.

The lists are what memcached 1.6.18 sends, as Debian 12 builds it (with TLS
and extstore, without the proxy), started as the tests start a server
(`-p PORT -U 0 -l 127.0.0.1`). memcached's doc/protocol.txt documents most
of them; where it does not match what 1.6.18 sends, PROTOCOL_TXT below lists
its names and DOCUMENTED_NOT_SENT says why each is not sent
(test_stats.FieldListsTest checks the two agree).

Some of memcached's fields depend on its settings; CONDITIONAL_* say on
which (memcached.c's server_stats, items.c's item_stats and
item_stats_totals), and the field lists for a given command line are built
from them by stats_fields() and items_fields().
"""

# `stats`, with memcached's default settings, before its engine's totals.
GENERAL = [
    "pid", "uptime", "time", "version", "libevent", "pointer_size", "rusage_user",
    "rusage_system", "max_connections", "curr_connections", "total_connections",
    "rejected_connections", "connection_structures", "response_obj_oom", "response_obj_count",
    "response_obj_bytes", "read_buf_count", "read_buf_bytes", "read_buf_bytes_free",
    "read_buf_oom", "reserved_fds", "cmd_get", "cmd_set", "cmd_flush", "cmd_touch", "cmd_meta",
    "get_hits", "get_misses", "get_expired", "get_flushed", "delete_misses", "delete_hits",
    "incr_misses", "incr_hits", "decr_misses", "decr_hits", "cas_misses", "cas_hits",
    "cas_badval", "touch_hits", "touch_misses", "store_too_large", "store_no_memory",
    "auth_cmds", "auth_errors", "idle_kicks", "bytes_read", "bytes_written", "limit_maxbytes",
    "accepting_conns", "listen_disabled_num", "time_in_listen_disabled_us", "threads",
    "conn_yields", "hash_power_level", "hash_bytes", "hash_is_expanding",
    "slab_reassign_rescues", "slab_reassign_chunk_rescues", "slab_reassign_evictions_nomem",
    "slab_reassign_inline_reclaim", "slab_reassign_busy_items", "slab_reassign_busy_deletes",
    "slab_reassign_running", "slabs_moved", "lru_crawler_running", "lru_crawler_starts",
    "lru_maintainer_juggles", "malloc_fails", "log_worker_dropped", "log_worker_written",
    "log_watcher_skipped", "log_watcher_sent", "log_watchers", "ssl_new_sessions",
    "ssl_handshake_errors", "time_since_server_cert_refresh", "unexpected_napi_ids",
    "round_robin_fallback",
    # the engine's totals (memcached.c's get_stats, items.c's item_stats_totals)
    "bytes", "curr_items", "total_items", "slab_global_page_pool", "expired_unfetched",
    "evicted_unfetched", "evicted_active", "evictions", "reclaimed", "crawler_reclaimed",
    "crawler_items_checked", "lrutail_reflocked", "moves_to_cold", "moves_to_warm",
    "moves_within_lru", "direct_reclaims", "lru_bumps_dropped",
]

# Fields of GENERAL shown only under a setting ("not": only without it).
CONDITIONAL_GENERAL = {
    "rejected_connections": "maxconns_fast",
    "idle_kicks": "idle_timeout",
    "slab_reassign_rescues": "slab_reassign", "slab_reassign_chunk_rescues": "slab_reassign",
    "slab_reassign_evictions_nomem": "slab_reassign",
    "slab_reassign_inline_reclaim": "slab_reassign", "slab_reassign_busy_items": "slab_reassign",
    "slab_reassign_busy_deletes": "slab_reassign", "slab_reassign_running": "slab_reassign",
    "slabs_moved": "slab_reassign",
    "lru_crawler_running": "lru_crawler", "lru_crawler_starts": "lru_crawler",
    "lru_maintainer_juggles": "lru_maintainer",
    "ssl_new_sessions": "ssl_session_cache",
    "ssl_handshake_errors": "ssl", "time_since_server_cert_refresh": "ssl",
    "evicted_active": "lru_maintainer", "moves_to_cold": "lru_maintainer",
    "moves_to_warm": "lru_maintainer", "moves_within_lru": "lru_maintainer",
    "direct_reclaims": "lru_maintainer", "lru_bumps_dropped": "lru_maintainer",
}

# `stats settings`.
SETTINGS = [
    "maxbytes", "maxconns", "tcpport", "udpport", "inter", "verbosity", "oldest", "evictions",
    "domain_socket", "umask", "shutdown_command", "growth_factor", "chunk_size", "num_threads",
    "num_threads_per_udp", "stat_key_prefix", "detail_enabled", "reqs_per_event",
    "cas_enabled", "tcp_backlog", "binding_protocol", "auth_enabled_sasl",
    "auth_enabled_ascii", "item_size_max", "maxconns_fast", "hashpower_init", "slab_reassign",
    "slab_automove", "slab_automove_ratio", "slab_automove_window", "slab_chunk_max",
    "lru_crawler", "lru_crawler_sleep", "lru_crawler_tocrawl", "tail_repair_time",
    "flush_enabled", "dump_enabled", "hash_algorithm", "lru_maintainer_thread",
    "lru_segmented", "hot_lru_pct", "warm_lru_pct", "hot_max_factor", "warm_max_factor",
    "temp_lru", "temporary_ttl", "idle_timeout", "watcher_logbuf_size", "worker_logbuf_size",
    "read_buf_mem_limit", "track_sizes", "inline_ascii_response", "ext_item_size",
    "ext_item_age", "ext_low_ttl", "ext_recache_rate", "ext_wbuf_size", "ext_compact_under",
    "ext_drop_under", "ext_max_sleep", "ext_max_frag", "slab_automove_freeratio",
    "ext_drop_unread", "ssl_enabled", "ssl_chain_cert", "ssl_key", "ssl_verify_mode",
    "ssl_keyformat", "ssl_ciphers", "ssl_ca_cert", "ssl_wbuf_size", "ssl_session_cache",
    "ssl_kernel_tls", "ssl_min_version", "num_napi_ids", "memory_file",
]

# `stats items`, one class's fields (STAT items:<class>:<field>).
ITEMS = [
    "number", "number_hot", "number_warm", "number_cold", "number_temp", "age_hot",
    "age_warm", "age", "mem_requested", "evicted", "evicted_nonzero", "evicted_time",
    "outofmemory", "tailrepairs", "reclaimed", "expired_unfetched", "evicted_unfetched",
    "evicted_active", "crawler_reclaimed", "crawler_items_checked", "lrutail_reflocked",
    "moves_to_cold", "moves_to_warm", "moves_within_lru", "direct_reclaims", "hits_to_hot",
    "hits_to_warm", "hits_to_cold", "hits_to_temp",
]

CONDITIONAL_ITEMS = {
    "number_hot": "lru_maintainer", "number_warm": "lru_maintainer",
    "number_cold": "lru_maintainer", "number_temp": "temp_lru", "age_hot": "lru_maintainer",
    "age_warm": "lru_maintainer", "evicted_active": "lru_maintainer",
    "moves_to_cold": "lru_maintainer", "moves_to_warm": "lru_maintainer",
    "moves_within_lru": "lru_maintainer", "direct_reclaims": "lru_maintainer",
    "hits_to_hot": "lru_maintainer", "hits_to_warm": "lru_maintainer",
    "hits_to_cold": "lru_maintainer", "hits_to_temp": "lru_maintainer",
}

# `stats slabs`: one class's fields (STAT <class>:<field>), then the totals.
SLABS = [
    "chunk_size", "chunks_per_page", "total_pages", "total_chunks", "used_chunks",
    "free_chunks", "free_chunks_end", "get_hits", "cmd_set", "delete_hits", "incr_hits",
    "decr_hits", "cas_hits", "cas_badval", "touch_hits",
]
SLABS_TOTALS = ["active_slabs", "total_malloced"]

# `stats conns`: a client connection's fields, and a listening socket's
# (STAT <fd>:<field>).
CONNS_CLIENT = ["addr", "listen_addr", "state", "secs_since_last_cmd"]
CONNS_LISTENER = ["addr", "state", "secs_since_last_cmd"]

# What gpuhash-server shows beyond memcached's fields (docs/designs/server.md):
# its index's counters after memcached's `stats`, TLS's protocol errors (a
# counter of later memcached versions), its own settings after memcached's.
GPUHASH_GENERAL = [
    "ssl_proto_errors", "index_mode", "index", "index_in_use", "index_gpu_shards",
    "index_entries", "index_capacity", "index_memory_bytes",
    "index_rebuilds", "index_overflow", "index_failovers", "index_erase_misses",
    "index_batches", "index_batch_operations", "index_batch_max_operations",
    "index_batch_mean_ns", "index_wait_groups_held", "index_wait_groups_sent",
    "index_batches_overlapped", "index_kernel_renewals", "index_moves_to_cpu",
    "index_moves_to_gpu", "index_auto_windows", "index_auto_cpu_us_per_s",
    "index_auto_gpu_us_per_s", "index_auto_keys_per_batch", "index_auto_cpu_ns_per_key",
    "index_auto_gpu_ns_per_batch",
]
GPUHASH_SETTINGS = ["index", "batch_max", "batch_wait_us", "spin_us", "shards", "batch_runner"]

# memcached's settings by default, and the -o options that change them.
DEFAULT_SWITCHES = {"maxconns_fast", "slab_reassign", "lru_crawler", "lru_maintainer"}


def switches(extended=(), ssl=False, ssl_session_cache=False):
    """The settings CONDITIONAL_* depend on, for the -o options `extended`
    (e.g. ["idle_timeout=5", "no_lru_crawler"])."""
    on = set(DEFAULT_SWITCHES)
    for option in extended:
        name, _, value = option.partition("=")
        if name == "idle_timeout" and int(value) != 0:
            on.add("idle_timeout")
        if name == "temporary_ttl":
            on.add("temp_lru")
        if name in ("no_maxconns_fast", "no_modern"):
            on.discard("maxconns_fast")
        if name in ("no_slab_reassign", "no_modern"):
            on.discard("slab_reassign")
        if name in ("no_lru_crawler", "no_modern"):
            on.discard("lru_crawler")
        if name in ("no_lru_maintainer", "no_modern"):
            on.discard("lru_maintainer")
    if ssl:
        on.add("ssl")
        if ssl_session_cache:
            on.add("ssl_session_cache")
    return on


def _shown(fields, conditional, on):
    return [name for name in fields if conditional.get(name, None) in (None, *on)]


def stats_fields(on):
    """`stats`' fields under the settings `on` (switches())."""
    return _shown(GENERAL, CONDITIONAL_GENERAL, on)


def items_fields(on):
    """One class's `stats items` fields under the settings `on`; number_temp
    needs the LRU maintainer too."""
    shown = _shown(ITEMS, CONDITIONAL_ITEMS, on)
    if "lru_maintainer" not in on and "number_temp" in shown:
        shown.remove("number_temp")
    return shown


# The names memcached 1.6.18's doc/protocol.txt documents, in its order.
PROTOCOL_TXT = {
    "stats": [
        "pid", "uptime", "time", "version", "pointer_size", "rusage_user", "rusage_system",
        "curr_items", "total_items", "bytes", "max_connections", "curr_connections",
        "total_connections", "rejected_connections", "connection_structures",
        "response_obj_oom", "response_obj_count", "response_obj_bytes", "read_buf_count",
        "read_buf_bytes", "read_buf_bytes_free", "read_buf_oom", "reserved_fds",
        "proxy_conn_requests", "proxy_conn_errors", "proxy_conn_oom", "proxy_req_active",
        "proxy_req_await", "cmd_get", "cmd_set", "cmd_flush", "cmd_touch", "get_hits",
        "get_misses", "get_expired", "get_flushed", "delete_misses", "delete_hits",
        "incr_misses", "incr_hits", "decr_misses", "decr_hits", "cas_misses", "cas_hits",
        "cas_badval", "touch_hits", "touch_misses", "store_too_large", "store_no_memory",
        "auth_cmds", "auth_errors", "idle_kicks", "evictions", "reclaimed", "bytes_read",
        "bytes_written", "limit_maxbytes", "accepting_conns", "listen_disabled_num",
        "time_in_listen_disabled_us", "threads", "conn_yields", "hash_power_level",
        "hash_bytes", "hash_is_expanding", "expired_unfetched", "evicted_unfetched",
        "evicted_active", "slab_reassign_running", "slabs_moved", "crawler_reclaimed",
        "crawler_items_checked", "lrutail_reflocked", "moves_to_cold", "moves_to_warm",
        "moves_within_lru", "direct_reclaims", "lru_crawler_starts", "lru_maintainer_juggles",
        "slab_global_page_pool", "slab_reassign_rescues", "slab_reassign_evictions_nomem",
        "slab_reassign_chunk_rescues", "slab_reassign_inline_reclaim",
        "slab_reassign_busy_items", "slab_reassign_busy_deletes", "log_worker_dropped",
        "log_worker_written", "log_watcher_skipped", "log_watcher_sent", "log_watchers",
        "unexpected_napi_ids", "round_robin_fallback",
        # its TLS section
        "ssl_handshake_errors", "ssl_min_version", "ssl_new_sessions",
        "time_since_server_cert_refresh",
    ],
    "settings": [
        "maxbytes", "maxconns", "tcpport", "udpport", "inter", "verbosity", "oldest",
        "evictions", "domain_socket", "umask", "shutdown_command", "growth_factor",
        "chunk_size", "num_threads", "stat_key_prefix", "detail_enabled", "reqs_per_event",
        "cas_enabled", "tcp_backlog", "auth_enabled_sasl", "item_size_max", "maxconns_fast",
        "hashpower_init", "slab_reassign", "slab_automove", "slab_automove_ratio",
        "slab_automove_window", "slab_chunk_max", "hash_algorithm", "lru_crawler",
        "lru_crawler_sleep", "lru_crawler_tocrawl", "lru_maintainer_thread", "hot_lru_pct",
        "warm_lru_pct", "hot_max_factor", "warm_max_factor", "temp_lru", "temporary_ttl",
        "idle_time", "watcher_logbuf_size", "worker_logbuf_size", "read_obj_mem_limit",
        "track_sizes", "inline_ascii_response", "drop_privileges", "proxy_enabled",
        "proxy_uring_enabled", "memory_file",
    ],
    "items": [
        "number", "number_hot", "number_warm", "number_cold", "number_temp", "age_hot",
        "age_warm", "age", "mem_requested", "evicted", "evicted_nonzero", "evicted_time",
        "outofmemory", "tailrepairs", "reclaimed", "expired_unfetched", "evicted_unfetched",
        "evicted_active", "crawler_reclaimed", "lrutail_reflocked", "moves_to_cold",
        "moves_to_warm", "moves_within_lru", "direct_reclaims", "hits_to_hot", "hits_to_warm",
        "hits_to_cold", "hits_to_temp",
    ],
    "slabs": [
        "chunk_size", "chunks_per_page", "total_pages", "total_chunks", "get_hits", "cmd_set",
        "delete_hits", "incr_hits", "decr_hits", "cas_hits", "cas_badval", "touch_hits",
        "used_chunks", "free_chunks", "free_chunks_end", "active_slabs", "total_malloced",
    ],
    "conns": ["addr", "listen_addr", "state", "secs_since_last_cmd"],
}

# Documented in protocol.txt, not sent by memcached 1.6.18 as built here, and why.
DOCUMENTED_NOT_SENT = {
    "stats": {
        "proxy_conn_requests": "the proxy (a build option, off here; sent with -o proxy_config)",
        "proxy_conn_errors": "the proxy", "proxy_conn_oom": "the proxy",
        "proxy_req_active": "the proxy",
        "proxy_req_await": "the proxy (memcached.c sends proxy_await_active)",
        "ssl_min_version": "sent in `stats settings`",
    },
    "settings": {
        "idle_time": "sent as idle_timeout",
        "read_obj_mem_limit": "sent as read_buf_mem_limit",
        "drop_privileges": "built only where the seccomp sandbox is (not Debian's build)",
        "proxy_enabled": "the proxy", "proxy_uring_enabled": "the proxy",
    },
}

# Sent by memcached 1.6.18 and missing from protocol.txt.
SENT_NOT_DOCUMENTED = {
    "stats": {"libevent", "cmd_meta", "lru_crawler_running", "malloc_fails",
              "lru_bumps_dropped"},
    "settings": {"num_threads_per_udp", "binding_protocol", "auth_enabled_ascii", "tail_repair_time",
                 "dump_enabled", "flush_enabled", "lru_segmented", "idle_timeout",
                 "read_buf_mem_limit", "ext_item_size", "ext_item_age", "ext_low_ttl",
                 "ext_recache_rate", "ext_wbuf_size", "ext_compact_under", "ext_drop_under",
                 "ext_max_sleep", "ext_max_frag", "slab_automove_freeratio", "ext_drop_unread",
                 "ssl_enabled", "ssl_chain_cert", "ssl_key", "ssl_verify_mode", "ssl_keyformat",
                 "ssl_ciphers", "ssl_ca_cert", "ssl_wbuf_size", "ssl_session_cache",
                 "ssl_kernel_tls", "ssl_min_version", "num_napi_ids"},
    "items": {"crawler_items_checked"},  # documented for `stats` only
    "slabs": set(),
    "conns": set(),
}
