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


def test_a_million_row_table_streams_in_bounded_memory_every_chunk_with_its_header() -> None:
    """Issue 60: a spreadsheet exported to Markdown, one table of 1 020 000 rows (100 MB), through
    the jsonl flow in at most 256 MB, every chunk after the first carrying the table's header
    (checked line by line as the lines are written), at 5 MiB/s or more: as a ratio to the Node.js
    manual's rate measured beside it (9.5 MiB/s when the issue was filed), so 0.53 of it."""
    table = measured("spreadsheet", 100_000_000)
    assert table["chunks"] > 100_000
    assert table["peak_rss_mb"] <= 256, table
    manual = measured("manual", 32 * MIB)
    assert table["mib_per_s"] / manual["mib_per_s"] >= 5 / 9.5, (table, manual)
