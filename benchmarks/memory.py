"""Peak memory of a benchmark's own process; imports nothing, so that it adds nothing to it."""


def peak_rss_mb() -> float:
    """This process's peak resident memory since it started its program (``VmHWM``): unlike
    ``ru_maxrss``, which Linux carries over from the parent through fork and exec, so that a child
    of a large bench process would report the parent's peak."""
    with open("/proc/self/status", encoding="ascii") as status:
        (line,) = [line for line in status if line.startswith("VmHWM:")]
    return int(line.split()[1]) / 1024
