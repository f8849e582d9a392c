"""Exact text chunking: the pure core shared by every function, deployed as the Lambda layer.

Nothing here knows of Lambda, HTTP or AWS SDKs; handlers adapt events to these names.
"""

from .delimiter_chunk import delimiter_chunk
from .errors import (
    InputTooLarge,
    InternalError,
    InvalidInput,
    OutputTooLarge,
    Problem,
    ToolError,
    TooManyChunks,
    UnclosedStartMarker,
)
from .extract_between import extract_between
from .paragraphs_split import paragraphs_split
from .tools import DELIMITER_CHUNK_TOOL, EXTRACT_BETWEEN_TOOL, PARAGRAPHS_SPLIT_TOOL, TOOLS, Tool

__all__ = [
    "DELIMITER_CHUNK_TOOL",
    "EXTRACT_BETWEEN_TOOL",
    "PARAGRAPHS_SPLIT_TOOL",
    "TOOLS",
    "InputTooLarge",
    "InternalError",
    "InvalidInput",
    "OutputTooLarge",
    "Problem",
    "TooManyChunks",
    "Tool",
    "ToolError",
    "UnclosedStartMarker",
    "delimiter_chunk",
    "extract_between",
    "paragraphs_split",
]
