"""Lambda entry point of text-extract-between: POST /v1/tools/text-extract-between/versions/1.0.0/execute."""

from api_adapter import make_api_handler
from texttools import EXTRACT_BETWEEN_TOOL

lambda_handler = make_api_handler(EXTRACT_BETWEEN_TOOL)
