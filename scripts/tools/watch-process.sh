# Sourced by the benchmark scripts. `watch_process PID` returns when the
# process ends, having sampled it every 0.05 s: its peak anonymous memory
# and peak RSS (KiB: peak_anon, peak_rss) and the bytes it read and wrote
# with read/write calls (io_read, io_written).
watch_process() {
    local pid=$1 anon rss r w
    peak_anon=0
    peak_rss=0
    io_read=0
    io_written=0
    while kill -0 "$pid" 2>/dev/null; do
        if read -r r w < <(awk '/^rchar/ {r=$2} /^wchar/ {w=$2} END {print r+0, w+0}' \
            "/proc/$pid/io" 2>/dev/null); then
            io_read=$r
            io_written=$w
        fi
        if read -r anon rss < <(awk '/^RssAnon/ {a=$2} /^VmHWM/ {r=$2} END {print a+0, r+0}' \
            "/proc/$pid/status" 2>/dev/null); then
            ((anon > peak_anon)) && peak_anon=$anon
            ((rss > peak_rss)) && peak_rss=$rss
        fi
        sleep 0.05
    done
}
