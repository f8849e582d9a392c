"""One error hierarchy: each class carries the API.md code and HTTP status it answers with.

The status is data here (the S3 flow writes the code, the API also sends the status); nothing in
the core speaks HTTP.
"""

from typing import ClassVar, TypedDict


class Problem(TypedDict):
    """One entry of an error's ``details``: which field and what is wrong with it."""

    field: str
    problem: str


class ToolError(Exception):
    """A failure the caller is told about in API.md's error shape."""

    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = 500
    default_message: ClassVar[str] = "The service failed unexpectedly."

    def __init__(self, message: str | None = None, details: list[Problem] | None = None) -> None:
        self.message = message or self.default_message
        self.details = details or []
        super().__init__(self.message)


class InternalError(ToolError):
    pass


class InvalidInput(ToolError):
    code = "invalid_input"
    status = 400
    default_message = "The request is not a valid input for this tool."


class InputTooLarge(ToolError):
    code = "input_too_large"
    status = 413
    default_message = "The input is larger than this tool accepts."


class TooManyChunks(ToolError):
    code = "too_many_chunks"
    status = 422
    default_message = "The input would give more pieces than this tool returns."


class OutputTooLarge(ToolError):
    code = "output_too_large"
    status = 422
    default_message = "The result would be larger than this tool returns."


class UnclosedStartMarker(ToolError):
    code = "unclosed_start_marker"
    status = 422
    default_message = "A start marker has no end marker after it."
