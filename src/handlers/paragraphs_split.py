"""Lambda entry point of text-paragraphs-split: POST /v1/tools/text-paragraphs-split/versions/1.0.0/execute."""

from api_adapter import make_api_handler
from texttools import PARAGRAPHS_SPLIT_TOOL

lambda_handler = make_api_handler(PARAGRAPHS_SPLIT_TOOL)
