"""Lambda entry point of text-delimiter-chunk: POST /v1/tools/text-delimiter-chunk/versions/1.0.0/execute."""

from api_adapter import make_api_handler
from texttools import DELIMITER_CHUNK_TOOL

lambda_handler = make_api_handler(DELIMITER_CHUNK_TOOL)
