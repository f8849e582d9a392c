"""Issue 60's documents at scale through the chunker's own path (``ChunksFormat=jsonl``), each in a
process of its own whose peak RSS is measured (benchmarks/at_scale.py): the bounds hold with room
to spare, and fail by far where what they bound grows with the document."""

from benchmarks.at_scale import measured

MIB = 1 << 20


def test_long_headings_in_every_chunk_keep_the_memory_bounded() -> None:
    """16 MiB of sections whose heading is a 250 KB paragraph (a setext heading over it, as in
    converted text): 5 GB of lines, each chunk carrying that heading. What is held of the lines is
    bounded in bytes: some 125 MB at the peak, as for the Node.js manual (437 MB when a window's
    lines were held whole)."""
    row = measured("long-headings", 16 * MIB)
    assert row["written"] > 200 * row["mib"] * MIB
    assert row["peak_rss_mb"] < 200, row
